"""BLT, the byte latent transformer (Hugging Face transformers, tiny configuration): bytes grouped into
patches by entropy (a small frozen byte model's next-byte entropy, `Categorical(logits).entropy()`,
thresholded to start patches, patch lengths counted per row), hash n-gram embeddings (a rolling
polynomial hash of each byte's preceding 3 and 4 bytes in int64, taken modulo the table size and looked
up), a local encoder whose patch queries cross-attend to their bytes, a global transformer over patches
and a local decoder cross-attending back to the patches."""

from common import causal_lm_loss, run
from transformers import BltConfig, BltForCausalLM

VOCAB = 260


def build() -> BltForCausalLM:
    small = {"num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": 64}
    config = BltConfig(
        vocab_size=VOCAB, max_position_embeddings=64, patch_size=4, patching_threshold=1.335442066192627,
        local_attention_window_len=32, cross_attn_k=2, encoder_hash_byte_group_size=[3, 4],
        encoder_hash_byte_group_vocab=64, encoder_hash_byte_group_nb_functions=1, use_cache=False,
        patcher_config={**small, "hidden_size": 32, "max_position_embeddings": 64, "sliding_window": 32},
        encoder_config={**small, "hidden_size": 32, "hidden_size_global": 64, "max_position_embeddings": 64},
        decoder_config={**small, "hidden_size": 32, "hidden_size_global": 64, "max_position_embeddings": 64},
        global_config={**small, "hidden_size": 64, "max_position_embeddings": 64},
    )  # fmt: skip
    return BltForCausalLM(config)


loss_of = causal_lm_loss(VOCAB)

if __name__ == "__main__":
    run(build, loss_of)
