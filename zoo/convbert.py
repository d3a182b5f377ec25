"""ConvBERT (Hugging Face transformers, tiny configuration): span-based dynamic convolution heads beside
self-attention, a separable 1-D convolution over the transposed hidden states, unfold."""

from common import run, sequence_classification_loss
from transformers import ConvBertConfig, ConvBertForSequenceClassification

VOCAB = 64


def build() -> ConvBertForSequenceClassification:
    config = ConvBertConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64,
        embedding_size=32, head_ratio=2, conv_kernel_size=3, num_labels=3,
    )  # fmt: skip
    return ConvBertForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
