"""TVP (Hugging Face transformers, tiny configuration): text-visual prompting for temporal video grounding:
learned pads framing every frame (their prompt resized to the frames by bicubic interpolation of a
fractional scale factor), a ResNet over each frame, a grid convolution, 2 x 2 max pooling, the frames'
grids averaged, row and column position embeddings upsampled bicubically past their learned 2 x 2, a
BERT-style encoder over a learned text prompt, the caption and the visual tokens; a sigmoid head
predicting the moment's start and end as fractions of the video, trained on 1 - IoU of the moments, the
distance of their mid-points and the difference of their durations (element-wise minimum and maximum,
clamped below)."""

import numpy as np
import torch
from common import run, tokens
from transformers import ResNetConfig, TvpConfig, TvpForVideoGrounding

VOCAB, FRAMES, SIZE = 64, 4, 48


def build() -> TvpForVideoGrounding:
    backbone = ResNetConfig(
        embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], layer_type="basic", out_features=["stage2"]
    )
    config = TvpConfig(
        backbone_config=backbone, vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=2, max_position_embeddings=64, max_grid_row_position_embeddings=2,
        max_grid_col_position_embeddings=2, visual_prompt_size=8, max_img_size=64, num_frames=FRAMES,
        visual_prompter_type="framepad", visual_prompter_apply="replace",
    )  # fmt: skip
    return TvpForVideoGrounding(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The grounding loss of a random clip of 4 frames of 48 x 48 (the pads interpolated from 64 x 64) and a
    caption of 12 tokens with a random moment of a 30-second video (one clip a batch: the library's column
    position embeddings take no larger batch)."""
    video = torch.from_numpy(rng.standard_normal((1, FRAMES, 3, SIZE, SIZE)).astype(np.float32))
    moments = np.sort(rng.uniform(0, 30, (1, 2)), axis=-1).astype(np.float32)
    labels = (torch.tensor(30.0), torch.from_numpy(moments[:, 0]), torch.from_numpy(moments[:, 1]))
    out = model(input_ids=tokens(rng, VOCAB, 1, 12), pixel_values=video, labels=labels, interpolate_pos_encoding=True)
    return out.loss.mean()


if __name__ == "__main__":
    run(build, loss_of)
