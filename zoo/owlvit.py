"""OWL-ViT (Hugging Face transformers, tiny configuration): open-vocabulary detection: a CLIP text tower
(causal attention, the query read at each text's highest token id by ``argmax``) and a CLIP vision tower
whose patch tokens, each times the class token, become one box per patch; the vision position
embeddings resized bicubically to a larger image and the box bias (``log`` and ``log1p`` of the patch
grid) computed for it, boxes through ``sigmoid``, each box's class logits the normalised dot product with
every text query, shifted and scaled by its own learned ``elu``."""

import numpy as np
import torch
from common import images, run
from transformers import OwlViTConfig, OwlViTForObjectDetection

VOCAB, QUERIES, PATCHES = 96, 2, 36


def build() -> OwlViTForObjectDetection:
    text = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 2, "max_position_embeddings": 16, "bos_token_id": 0,
            "pad_token_id": 1, "eos_token_id": VOCAB - 1}  # fmt: skip
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
              "image_size": 32, "patch_size": 8}  # fmt: skip
    return OwlViTForObjectDetection(OwlViTConfig(text_config=text, vision_config=vision, projection_dim=32))


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 48 x 48 images (6 x 6 patches, the position embeddings interpolated), 2 random text
    queries of 8 tokens each ending in the end token; sigmoid cross entropy of every box's logits against
    a random one-hot query plus the L1 distance of its box to a random box."""
    ids = np.concatenate([rng.integers(0, VOCAB - 1, (2 * QUERIES, 7)), np.full((2 * QUERIES, 1), VOCAB - 1)], 1)
    out = model(input_ids=torch.from_numpy(ids), pixel_values=images(rng, batch=2, size=48),
                interpolate_pos_encoding=True)  # fmt: skip
    classes = torch.from_numpy(np.eye(QUERIES, dtype=np.float32)[rng.integers(0, QUERIES, (2, PATCHES))])
    boxes = torch.from_numpy(rng.uniform(0.1, 0.9, (2, PATCHES, 4)).astype(np.float32))
    ce = torch.nn.functional.binary_cross_entropy_with_logits(out.logits, classes)
    return ce + (out.pred_boxes - boxes).abs().mean()


if __name__ == "__main__":
    run(build, loss_of)
