"""Gemma 3n's text model (Hugging Face transformers, tiny configuration): activation sparsity (the gate
projection's values below mean + std * the normal's inverse CDF at the target sparsity zeroed by ReLU, the
multiplier from `torch.distributions.Normal.icdf`, `erfinv`), alternating updates (AltUp: four copies of the
hidden state, one run through each layer, the others predicted and corrected by learned coefficients clipped
by `clamp`), LAuReL (a low-rank learned residual beside each attention block), per-layer input embeddings,
key/value caches shared across the last layers, logits soft-capped by tanh."""

from common import causal_lm_loss, run
from transformers import Gemma3nForCausalLM, Gemma3nTextConfig

VOCAB = 128


def build() -> Gemma3nForCausalLM:
    config = Gemma3nTextConfig(
        vocab_size=VOCAB, vocab_size_per_layer_input=VOCAB, hidden_size=32, hidden_size_per_layer_input=8,
        intermediate_size=64, num_hidden_layers=4, num_attention_heads=2, num_key_value_heads=1, head_dim=16,
        sliding_window=8, layer_types=["sliding_attention", "full_attention"] * 2, num_kv_shared_layers=2,
        laurel_rank=4, altup_num_inputs=4, activation_sparsity_pattern=[0.95, 0.95, 0.0, 0.0],
    )  # fmt: skip
    return Gemma3nForCausalLM(config)


loss_of = causal_lm_loss(VOCAB)


if __name__ == "__main__":
    run(build, loss_of)
