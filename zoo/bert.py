"""BERT (Hugging Face transformers, tiny configuration): sequence classification with a padding mask."""

import torch
from common import run, tokens
from transformers import BertConfig, BertForSequenceClassification

VOCAB = 96


def build() -> BertForSequenceClassification:
    config = BertConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=32, num_labels=3,
    )  # fmt: skip
    return BertForSequenceClassification(config)


def loss_of(model, rng):
    ids = tokens(rng, VOCAB)
    mask = torch.ones_like(ids)
    mask[:, 12:] = 0  # the last 4 positions are padding
    labels = torch.from_numpy(rng.integers(0, 3, ids.shape[0]))
    return model(input_ids=ids, attention_mask=mask, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
