"""What every model of the zoo shares: its training run. Torch and NumPy only.

``python zoo/NAME.py [--steps N] [--load]``: the model of ``NAME.py``, built by its library from a
tiny configuration under ``torch.manual_seed(0)`` (the library's own initialisation), trained
``--steps`` AdamW steps (default 2) with the gradients clipped to norm 1, on data made by NumPy.
``--load`` first overwrites every parameter with values made by NumPy, as a fine-tune from a
checkpoint would: the initialisation torch ran no longer reaches the result. Each step's loss
is printed.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
import torch

# (model, rng) -> the loss of one batch drawn from rng
Step = Callable[[torch.nn.Module, np.random.Generator], torch.Tensor]


def load_weights(model: torch.nn.Module) -> None:
    """Every parameter from NumPy (a checkpoint's values), written over the library's initialisation."""
    rng = np.random.default_rng(1)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.from_numpy(np.asarray(rng.standard_normal(tuple(p.shape)) * 0.05, np.float32)))


def run(build: Callable[[], torch.nn.Module], loss_of: Step, argv: list[str] | None = None) -> list[float]:
    """Parse the zoo's arguments, build the model and train it; returns the losses."""
    parser = argparse.ArgumentParser(description="one model of the zoo: a few AdamW steps on NumPy's data")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--load", action="store_true", help="overwrite every parameter with NumPy's values first")
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    model = build()
    if args.load:
        load_weights(model)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(0)
    losses = []
    for step in range(1, args.steps + 1):
        loss = loss_of(model, rng)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        losses.append(loss.item())
        print(f"step {step}: loss {losses[-1]!r}")
    return losses


def tokens(rng: np.random.Generator, vocab: int, batch: int = 4, length: int = 16) -> torch.Tensor:
    """A batch of token ids, (batch, length) int64."""
    return torch.from_numpy(rng.integers(0, vocab, (batch, length)))


def images(rng: np.random.Generator, batch: int = 4, size: int = 32) -> torch.Tensor:
    """A batch of images, (batch, 3, size, size) float32."""
    return torch.from_numpy(rng.standard_normal((batch, 3, size, size)).astype(np.float32))


def causal_lm_loss(vocab: int, batch: int = 4, length: int = 16) -> Step:
    """The loss of a Hugging Face causal language model on a batch of tokens, its own labels."""

    def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
        ids = tokens(rng, vocab, batch, length)
        return model(input_ids=ids, labels=ids).loss

    return loss_of


def seq2seq_lm_loss(vocab: int) -> Step:
    """The loss of a Hugging Face encoder-decoder on a batch of random source tokens and random target tokens."""

    def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
        return model(input_ids=tokens(rng, vocab), labels=tokens(rng, vocab)).loss

    return loss_of


def sequence_classification_loss(vocab: int, classes: int = 3) -> Step:
    """The loss of a Hugging Face sequence classifier on a batch of tokens, one of ``classes`` labels each."""

    def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
        ids = tokens(rng, vocab)
        return model(input_ids=ids, labels=torch.from_numpy(rng.integers(0, classes, ids.shape[0]))).loss

    return loss_of


def image_classification_loss(labels: int, batch: int = 4, size: int = 32, channels_last: bool = False) -> Step:
    """The loss of a Hugging Face image classifier on a batch of images and labels (the images
    channels-last in memory if ``channels_last``)."""

    def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
        pixels = images(rng, batch, size)
        if channels_last:
            pixels = pixels.contiguous(memory_format=torch.channels_last)
        targets = torch.from_numpy(rng.integers(0, labels, pixels.shape[0]))
        return model(pixel_values=pixels, labels=targets).loss

    return loss_of


def detection_loss(labels: int, queries: int) -> Step:
    """The loss of a DETR-style detector on 2 random 64 x 64 images: per query, sigmoid cross entropy of its
    logits against a random one-hot class and the L1 distance of its box to a random box."""

    def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
        out = model(pixel_values=images(rng, batch=2, size=64))
        classes = torch.from_numpy(np.eye(labels, dtype=np.float32)[rng.integers(0, labels, (2, queries))])
        boxes = torch.from_numpy(rng.uniform(0.1, 0.9, (2, queries, 4)).astype(np.float32))
        ce = torch.nn.functional.binary_cross_entropy_with_logits(out.logits, classes)
        return ce + (out.pred_boxes - boxes).abs().mean()

    return loss_of


def depth_estimation_loss(size: int, max_depth: float, eps: float | None = 1e-3) -> Step:
    """The scale-invariant log error of a depth model's predicted depth on 2 random images of ``size``
    against random positive depths in [0.5, ``max_depth``) (``eps`` added to the prediction first, if any)."""

    def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
        depth = model(pixel_values=images(rng, batch=2, size=size)).predicted_depth
        target = torch.from_numpy(rng.uniform(0.5, max_depth, tuple(depth.shape)).astype(np.float32))
        d = torch.log(depth if eps is None else depth + eps) - torch.log(target)
        return (d**2).mean() - 0.5 * d.mean() ** 2

    return loss_of


def video_classification_loss(labels: int, shape: tuple[int, ...] = (2, 4, 3, 16, 16)) -> Step:
    """The loss of a Hugging Face video classifier on a batch of random clips (batch, frames, 3, H, W)
    and labels."""

    def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
        video = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
        return model(pixel_values=video, labels=torch.from_numpy(rng.integers(0, labels, shape[0]))).loss

    return loss_of


def speech_to_text_loss(vocab: int, shape: tuple[int, ...]) -> Step:
    """The loss of a Hugging Face speech encoder-decoder on random input features of ``shape`` and
    random target tokens."""

    def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
        features = torch.from_numpy(rng.standard_normal(shape).astype(np.float32))
        return model(input_features=features, labels=tokens(rng, vocab)).loss

    return loss_of


def mask_segmentation_loss(image: int) -> Step:
    """The loss of a SAM-style promptable segmenter on 2 random images of ``image`` pixels, two random
    points a box each: its masks, upscaled to the image bilinearly (corners not aligned, as the processor's
    post-processing does), in a Dice-plus-BCE against random targets, plus the IoU head's squared error
    against 0.5."""

    def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
        pixels = images(rng, batch=2, size=image)
        points = torch.from_numpy(rng.uniform(0, image, (2, 1, 2, 2)).astype(np.float32))
        labels = torch.from_numpy(rng.integers(0, 2, (2, 1, 2)))
        out = model(pixel_values=pixels, input_points=points, input_labels=labels, multimask_output=True)
        low = out.pred_masks  # (batch, prompts, masks, low-resolution height, width)
        masks = torch.nn.functional.interpolate(low.flatten(0, 1), (image, image), mode="bilinear", align_corners=False)
        target = torch.from_numpy((rng.random(tuple(masks.shape)) < 0.5).astype(np.float32))
        prob = torch.sigmoid(masks)
        dice = 1 - (2 * (prob * target).sum((-1, -2)) + 1) / (prob.sum((-1, -2)) + target.sum((-1, -2)) + 1)
        bce = torch.nn.functional.binary_cross_entropy_with_logits(masks, target)
        return dice.mean() + bce + ((out.iou_scores - 0.5) ** 2).mean()

    return loss_of
