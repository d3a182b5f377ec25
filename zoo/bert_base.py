"""BERT-base at its released size (Hugging Face transformers' default configuration, 110M parameters):
sequence classification of batches of 4 x 128 tokens, two of them padded."""

import torch
from common import run, tokens
from transformers import BertConfig, BertForSequenceClassification


def build() -> BertForSequenceClassification:
    return BertForSequenceClassification(BertConfig(num_labels=3))


def loss_of(model, rng):
    ids = tokens(rng, BertConfig().vocab_size, batch=4, length=128)
    mask = torch.ones_like(ids)
    mask[1, 100:] = 0  # padding of two lengths
    mask[3, 64:] = 0
    labels = torch.from_numpy(rng.integers(0, 3, ids.shape[0]))
    return model(input_ids=ids, attention_mask=mask, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
