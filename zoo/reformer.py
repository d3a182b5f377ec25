"""Reformer (Hugging Face transformers, tiny configuration): locality-sensitive hashing attention
(random rotations, buckets sorted and chunked), local attention, and reversible residual layers whose
backward pass recomputes the forward.

In training Reformer reseeds torch's generator from the operating system before each layer's
attention and feed-forward (``torch.seed()``, so that the backward's recomputation draws the same
dropout): two runs differ on any platform, and ``parity diff`` says so ("seeded differently"). Here
the rotations' seed is fixed (``hash_seed``) and dropout is off, as one would to make it reproducible,
so that what is left to differ is the arithmetic."""

from common import run, sequence_classification_loss
from transformers import ReformerConfig, ReformerForSequenceClassification

VOCAB = 96


def build() -> ReformerForSequenceClassification:
    config = ReformerConfig(
        vocab_size=VOCAB, hidden_size=32, num_attention_heads=2, attention_head_size=16, feed_forward_size=64,
        attn_layers=["lsh", "local"], axial_pos_embds=False, max_position_embeddings=64, lsh_attn_chunk_length=8,
        local_attn_chunk_length=8, num_buckets=4, num_hashes=2, is_decoder=False, num_labels=3, pad_token_id=0,
        hash_seed=0, hidden_dropout_prob=0.0, lsh_attention_probs_dropout_prob=0.0,
        local_attention_probs_dropout_prob=0.0, classifier_dropout=0.0,
    )  # fmt: skip
    return ReformerForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
