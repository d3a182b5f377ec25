"""TextNet (Hugging Face transformers, tiny configuration): re-parameterisable convolution layers trained
in their branched form — a main k x k convolution, a vertical k x 1 and a horizontal 1 x k one (stride 2
where the stage says so), each with its own batch norm, plus a batch-normed identity where the shapes
allow, summed and through ReLU — in asymmetric kernels (1 x 3, 3 x 1), then average pooling and a linear
classifier."""

from common import image_classification_loss, run
from transformers import TextNetConfig, TextNetForImageClassification


def build() -> TextNetForImageClassification:
    config = TextNetConfig(
        stem_out_channels=8, image_size=[32, 32], hidden_sizes=[8, 8, 16, 16, 32], num_labels=5,
        conv_layer_kernel_sizes=[[[3, 3], [3, 3]], [[3, 3], [1, 3], [3, 1]], [[3, 3], [3, 1]], [[3, 3], [1, 3]]],
        conv_layer_strides=[[1, 1], [2, 1, 1], [2, 1], [2, 1]],
    )  # fmt: skip
    return TextNetForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(5))  # 4 random images of 3 x 32 x 32
