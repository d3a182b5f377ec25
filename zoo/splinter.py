"""Splinter (Hugging Face transformers, tiny configuration): few-shot span selection from the question
tokens of each sequence: their positions found by ``where``, counted by ``bincount``, numbered within
their row by ``searchsorted`` and written by ``index_put_``; each question token's representation
``gather``ed and transformed, start and end logits as its products with every token's, the padding
pushed down by the float's lowest value. The loss is the cross entropy of random start and end tokens."""

import torch
from common import run, tokens
from transformers import SplinterConfig, SplinterForPreTraining

VOCAB, QUESTION = 96, 90


def build() -> SplinterForPreTraining:
    config = SplinterConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=32, question_token_id=QUESTION,
    )  # fmt: skip
    return SplinterForPreTraining(config)


def loss_of(model, rng):
    """4 sequences of 16 tokens, the last 2 padding, with 1, 2, 3 and 2 question tokens (the rows' questions
    padded to 3 by position 0, the pad id, which the loss ignores)."""
    ids = tokens(rng, QUESTION)
    for row, places in enumerate(((3,), (2, 9), (1, 5, 11), (4, 6))):
        ids[row, list(places)] = QUESTION
    mask = torch.ones_like(ids)
    mask[:, 14:] = 0
    out = model(input_ids=ids, attention_mask=mask)
    starts = torch.from_numpy(rng.integers(0, 14, (4, 3)))
    ends = torch.from_numpy(rng.integers(0, 14, (4, 3)))
    starts[0, 1:] = ends[0, 1:] = starts[1, 2] = ends[1, 2] = starts[3, 2] = ends[3, 2] = 0
    loss = torch.nn.CrossEntropyLoss(ignore_index=0)
    return (
        loss(out.start_logits.flatten(0, 1), starts.flatten()) + loss(out.end_logits.flatten(0, 1), ends.flatten())
    ) / 2


if __name__ == "__main__":
    run(build, loss_of)
