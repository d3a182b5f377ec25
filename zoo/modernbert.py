"""ModernBERT (Hugging Face transformers, tiny configuration): alternating global and local (sliding
window) attention, rotary positions, GeGLU, LayerNorm without bias."""

from common import run, sequence_classification_loss
from transformers import ModernBertConfig, ModernBertForSequenceClassification

VOCAB = 96


def build() -> ModernBertForSequenceClassification:
    config = ModernBertConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
        max_position_embeddings=32, num_labels=3, local_attention=8, pad_token_id=0, bos_token_id=1, eos_token_id=2,
        cls_token_id=1, sep_token_id=2,
    )  # fmt: skip
    return ModernBertForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
