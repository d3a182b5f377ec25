"""RemBERT (Hugging Face transformers, tiny configuration): BERT with decoupled embeddings, the input
embeddings narrower than the model and projected up to its width, classified from the pooled class
token."""

from common import run, sequence_classification_loss
from transformers import RemBertConfig, RemBertForSequenceClassification

VOCAB = 96


def build() -> RemBertForSequenceClassification:
    config = RemBertConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        input_embedding_size=16, output_embedding_size=24, max_position_embeddings=32, num_labels=3,
        pad_token_id=0, bos_token_id=1, eos_token_id=2,
    )  # fmt: skip
    return RemBertForSequenceClassification(config)


if __name__ == "__main__":
    run(build, sequence_classification_loss(VOCAB))
