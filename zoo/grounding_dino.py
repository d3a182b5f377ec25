"""Grounding DINO (Hugging Face transformers, tiny configuration): open-set detection conditioned on text: a
Swin backbone and a BERT text encoder whose attention is kept within each phrase (the phrases split at
delimiter tokens found by ``isin``, bounded by a running maximum and a flipped running minimum of their
positions), a feature enhancer fusing image and text both ways, two-stage query selection by the
encoder's text similarity (top-k), multi-scale deformable attention, and a decoder whose class logits are
each query's similarity to every text token. The loss is computed from the outputs (no Hungarian
matching)."""

import numpy as np
import torch
from common import images, run
from transformers import BertConfig, GroundingDinoConfig, GroundingDinoForObjectDetection, SwinConfig

VOCAB, QUERIES, TEXT = 1040, 6, 12
CLS, SEP, DOT = 101, 102, 1012  # BERT's ids, as the model looks for them (with "?", 1029)


def build() -> GroundingDinoForObjectDetection:
    backbone = SwinConfig(
        embed_dim=8, depths=[1, 1, 1], num_heads=[1, 1, 2], window_size=4, image_size=64, patch_size=4,
        out_features=["stage2", "stage3"],
    )  # fmt: skip
    text = BertConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=TEXT,
    )  # fmt: skip
    config = GroundingDinoConfig(
        backbone_config=backbone, text_config=text, num_queries=QUERIES, d_model=32, encoder_layers=1,
        decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
        decoder_ffn_dim=32, num_feature_levels=2, encoder_n_points=2, decoder_n_points=2, max_text_len=TEXT,
        disable_custom_kernels=True,
    )  # fmt: skip
    return GroundingDinoForObjectDetection(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 64 x 64 images, each with a prompt of 12 tokens of three phrases ending in delimiters;
    per query, sigmoid cross entropy of its token logits against a random phrase's tokens and the L1
    distance of its box to a random box."""
    ids = rng.integers(110, 1000, (2, TEXT))
    ids[:, 0], ids[:, [3, 7]], ids[:, -1] = CLS, DOT, SEP
    out = model(pixel_values=images(rng, batch=2, size=64), input_ids=torch.from_numpy(ids))
    phrase = rng.integers(0, 3, (2, QUERIES))
    target = np.zeros((2, QUERIES, TEXT), np.float32)
    for b in range(2):
        for q in range(QUERIES):
            target[b, q, (1, 4, 8)[phrase[b, q]] : (3, 7, 11)[phrase[b, q]]] = 1
    boxes = torch.from_numpy(rng.uniform(0.1, 0.9, (2, QUERIES, 4)).astype(np.float32))
    ce = torch.nn.functional.binary_cross_entropy_with_logits(out.logits, torch.from_numpy(target))
    return ce + (out.pred_boxes - boxes).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
