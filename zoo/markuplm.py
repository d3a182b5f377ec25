"""MarkupLM (Hugging Face transformers, tiny configuration): BERT over the text nodes of a web page, each
token's embedding adding its XPath (per depth, a tag embedding and a sibling-subscript embedding,
concatenated and passed through a ReLU MLP), positions counted by ``cumsum`` of the non-padding tokens;
extractive question answering (start and end cross entropy)."""

import torch
from common import run, tokens
from transformers import MarkupLMConfig, MarkupLMForQuestionAnswering

VOCAB, DEPTH = 96, 6


def build() -> MarkupLMForQuestionAnswering:
    config = MarkupLMConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=32, max_depth=DEPTH, max_xpath_tag_unit_embeddings=24,
        max_xpath_subs_unit_embeddings=40, tag_pad_id=20, subs_pad_id=32, xpath_unit_hidden_size=8,
        pad_token_id=1,
    )  # fmt: skip
    return MarkupLMForQuestionAnswering(config)


def loss_of(model, rng):
    """4 sequences of 16 tokens, the last 3 padding (id 1), each token's XPath of 2 to 6 levels of random
    tags and subscripts, padded past its depth; random answer spans."""
    ids = tokens(rng, VOCAB)
    ids[:, 13:] = 1
    depth = rng.integers(2, DEPTH + 1, ids.shape)
    level = torch.arange(DEPTH)
    deep = level < torch.from_numpy(depth)[..., None]
    tags = torch.where(deep, torch.from_numpy(rng.integers(0, 20, (*ids.shape, DEPTH))), 20)
    subs = torch.where(deep, torch.from_numpy(rng.integers(0, 32, (*ids.shape, DEPTH))), 32)
    starts = torch.from_numpy(rng.integers(0, 13, 4))
    ends = torch.clamp(starts + torch.from_numpy(rng.integers(0, 4, 4)), max=12)
    mask = (ids != 1).long()
    return model(
        input_ids=ids, attention_mask=mask, xpath_tags_seq=tags, xpath_subs_seq=subs, start_positions=starts,
        end_positions=ends,
    ).loss  # fmt: skip


if __name__ == "__main__":
    run(build, loss_of)
