"""MGP-STR (Hugging Face transformers, tiny configuration): scene-text recognition from a ViT over a
non-square 16 x 64 image (4 x 4 patches, a class token), then three A^3 token learners (character, BPE
and WordPiece): the tokens viewed as a (batch, hidden, tokens, 1) image through grouped (8 groups) and plain
1 x 1 convolutions, a softmax over the tokens per output position, the attention-weighted sum of the
grouped-convolved tokens by ``einsum``, a layer norm. Trained on the sum of the three heads' per-position
cross entropies against random labels."""

import numpy as np
import torch
from common import run
from transformers import MgpstrConfig, MgpstrForSceneTextRecognition

CHARS, BPE, WORDPIECE, LENGTH = 38, 64, 48, 9


def build() -> MgpstrForSceneTextRecognition:
    config = MgpstrConfig(
        image_size=[16, 64], patch_size=4, max_token_length=LENGTH, num_character_labels=CHARS,
        num_bpe_labels=BPE, num_wordpiece_labels=WORDPIECE, hidden_size=32, num_hidden_layers=2,
        num_attention_heads=4, mlp_ratio=2.0,
    )  # fmt: skip
    return MgpstrForSceneTextRecognition(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 16 x 64 images: per head, the cross entropy of every position's logits against a random label."""
    pixels = torch.from_numpy(rng.standard_normal((2, 3, 16, 64)).astype(np.float32))
    logits = model(pixel_values=pixels).logits
    loss = torch.zeros(())
    for head, classes in zip(logits, (CHARS, BPE, WORDPIECE), strict=True):
        labels = torch.from_numpy(rng.integers(0, classes, head.shape[:2]))
        loss = loss + torch.nn.functional.cross_entropy(head.flatten(0, 1), labels.flatten())
    return loss


if __name__ == "__main__":
    run(build, loss_of)
