"""RoCBERT (Hugging Face transformers, tiny configuration): a BERT whose input is each token's word,
pronunciation and glyph-shape embeddings ``cat``ed and projected by a linear layer, pre-trained against
adversarial attacks: the same encoder runs three times per step (the masked input, its attacked copy and the
labels, the labels' -100s replaced by the pad id through a boolean ``index_put_`` on an int64 clone), the three
pooled outputs L2-normalised by ``normalize``, two similarity matrices (input against attack, labels against
attack) scaled by 100 into cross entropies against the diagonal, halved and added to the masked-LM loss; every
weight's gradient accumulated over the three passes."""

import torch
from common import run, tokens
from transformers import RoCBertConfig, RoCBertForPreTraining

VOCAB, PRONUNCIATIONS, SHAPES, LENGTH = 96, 24, 40, 16


def build() -> RoCBertForPreTraining:
    config = RoCBertConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=32, pronunciation_vocab_size=PRONUNCIATIONS, pronunciation_embed_dim=16,
        shape_vocab_size=SHAPES, shape_embed_dim=24,
    )  # fmt: skip
    return RoCBertForPreTraining(config)


def loss_of(model, rng):
    """4 sequences of 16 tokens with their pronunciation and shape ids, the last 3 padding (id 0) under the
    attention mask; an attacked copy with a quarter of the tokens replaced; labels the clean tokens with
    -100 where nothing is predicted (every other position)."""
    ids = tokens(rng, VOCAB, 4, LENGTH)
    ids[:, 13:] = 0
    mask = torch.ones_like(ids)
    mask[:, 13:] = 0
    pronunciation = tokens(rng, PRONUNCIATIONS, 4, LENGTH)
    shape = tokens(rng, SHAPES, 4, LENGTH)
    attack = ids.clone()
    swap = torch.from_numpy(rng.random((4, LENGTH)) < 0.25)
    attack[swap] = tokens(rng, VOCAB, 4, LENGTH)[swap]
    labels = ids.clone()
    labels[:, ::2] = -100
    return model(
        input_ids=ids, input_shape_ids=shape, input_pronunciation_ids=pronunciation, attention_mask=mask,
        attack_input_ids=attack, attack_input_shape_ids=shape, attack_input_pronunciation_ids=pronunciation,
        attack_attention_mask=mask, labels_input_ids=labels, labels_input_shape_ids=shape,
        labels_input_pronunciation_ids=pronunciation, labels_attention_mask=mask,
    ).loss  # fmt: skip


if __name__ == "__main__":
    run(build, loss_of)
