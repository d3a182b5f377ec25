"""DINOv2 with registers (Hugging Face transformers, tiny configuration): DINOv2's ViT with LayerScale
and 4 register tokens between the class token and the patches, its position embeddings interpolated
bicubically (antialiased) to the image."""

from common import image_classification_loss, run
from transformers import Dinov2WithRegistersConfig, Dinov2WithRegistersForImageClassification


def build() -> Dinov2WithRegistersForImageClassification:
    config = Dinov2WithRegistersConfig(
        image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, mlp_ratio=2,
        num_register_tokens=4, num_labels=10,
    )  # fmt: skip
    return Dinov2WithRegistersForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10, size=40))
