"""VideoMAE (Hugging Face transformers, tiny configuration): a 3-D convolutional tubelet embedding, fixed
sinusoidal positions, a mean-pooled video classifier."""

from common import run, video_classification_loss
from transformers import VideoMAEConfig, VideoMAEForVideoClassification


def build() -> VideoMAEForVideoClassification:
    config = VideoMAEConfig(
        image_size=16, patch_size=4, num_frames=4, tubelet_size=2, hidden_size=32, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=64, num_labels=5,
    )  # fmt: skip
    return VideoMAEForVideoClassification(config)


if __name__ == "__main__":
    run(build, video_classification_loss(5))  # 2 random clips of 4 frames of 3 x 16 x 16
