"""Zamba2 (Hugging Face transformers, tiny configuration): Mamba-2 layers interleaved with one shared
attention block (its input the hidden state concatenated with the embeddings), reached through per-layer
LoRA adapters and a linear projection back."""

from common import causal_lm_loss, run
from transformers import Zamba2Config, Zamba2ForCausalLM

VOCAB = 96


def build() -> Zamba2ForCausalLM:
    config = Zamba2Config(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=3, layers_block_type=["mamba", "hybrid", "hybrid"],
        mamba_d_state=8, mamba_d_conv=4, mamba_expand=2, mamba_ngroups=1, n_mamba_heads=8, chunk_size=8,
        use_mamba_kernels=False, num_attention_heads=4, intermediate_size=64, num_mem_blocks=1,
        use_shared_attention_adapter=True, adapter_rank=4, max_position_embeddings=32,
    )  # fmt: skip
    return Zamba2ForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
