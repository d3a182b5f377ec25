"""CvT (Hugging Face transformers, tiny configuration; depths 1, 2, 3, as its drop-path rates are indexed
by stage): convolutional token embeddings, depthwise convolutional query/key/value projections with
batch norm, a class token in the last stage."""

from common import image_classification_loss, run
from transformers import CvtConfig, CvtForImageClassification


def build() -> CvtForImageClassification:
    config = CvtConfig(
        embed_dim=[16, 24, 32], num_heads=[1, 2, 2], depth=[1, 2, 3], patch_sizes=[7, 3, 3],
        patch_stride=[4, 2, 2], patch_padding=[2, 1, 1], mlp_ratio=[2.0] * 3, attention_drop_rate=[0.0] * 3,
        drop_rate=[0.0] * 3, drop_path_rate=[0.0] * 3, qkv_bias=[True] * 3, cls_token=[False, False, True],
        qkv_projection_method=["dw_bn"] * 3, kernel_qkv=[3] * 3, padding_kv=[1] * 3, stride_kv=[2] * 3,
        padding_q=[1] * 3, stride_q=[1] * 3, num_labels=10,
    )  # fmt: skip
    return CvtForImageClassification(config)


if __name__ == "__main__":
    run(build, image_classification_loss(10))
