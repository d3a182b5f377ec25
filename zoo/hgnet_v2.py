"""HGNetV2 (Hugging Face transformers, tiny configuration): a stem of padded 2x2 convolutions and a
max pool, stages of light (1x1 then depthwise) convolution blocks whose outputs are concatenated,
batch norm and a learnable scale-and-bias after each activation."""

from common import image_classification_loss, run
from transformers import HGNetV2Config, HGNetV2ForImageClassification


def build() -> HGNetV2ForImageClassification:
    config = HGNetV2Config(
        embedding_size=16, depths=[1, 1], hidden_sizes=[32, 48], stem_channels=[3, 8, 16],
        stage_in_channels=[16, 32], stage_mid_channels=[8, 16], stage_out_channels=[32, 48],
        stage_num_blocks=[1, 1], stage_downsample=[False, True], stage_downsample_strides=[2, 2],
        stage_light_block=[False, True], stage_kernel_size=[3, 5], stage_numb_of_layers=[2, 2],
        use_learnable_affine_block=True, num_labels=10,
    )  # fmt: skip
    return HGNetV2ForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
