"""LXMERT (Hugging Face transformers, tiny configuration): a vision-language encoder over text and object
features: a language encoder, an object-relationship encoder over region features projected and added to
their projected boxes (two layer norms averaged), then cross-modality layers of bidirectional
cross-attention; pre-trained on five losses at once: masked words, image-text matching, per-region object
and attribute classes (cross entropy without reduction, weighted by each region's confidence) and feature
regression (smooth L1 without reduction), and question answering."""

import numpy as np
import torch
from common import run
from transformers import LxmertConfig, LxmertForPreTraining

VOCAB, OBJECTS, ATTRS, ANSWERS, FEAT, REGIONS = 64, 12, 8, 6, 24, 5


def build() -> LxmertForPreTraining:
    config = LxmertConfig(
        vocab_size=VOCAB, hidden_size=32, num_attention_heads=2, intermediate_size=64, l_layers=2, x_layers=1,
        r_layers=1, visual_feat_dim=FEAT, visual_pos_dim=4, num_qa_labels=ANSWERS, num_object_labels=OBJECTS,
        num_attr_labels=ATTRS, max_position_embeddings=32,
    )  # fmt: skip
    return LxmertForPreTraining(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """3 captions of 10 tokens (some masked for prediction) with 5 regions each (features, boxes), whether each
    caption matches, each region's object and attribute class and confidence, and an answer."""
    ids = torch.from_numpy(rng.integers(1, VOCAB, (3, 10)))
    labels = np.full((3, 10), -100)
    labels[:, 2::4] = rng.integers(1, VOCAB, (3, 2))
    feats = torch.from_numpy(rng.standard_normal((3, REGIONS, FEAT)).astype(np.float32))
    boxes = np.sort(rng.random((3, REGIONS, 4)), axis=-1).astype(np.float32)
    conf = torch.from_numpy(rng.random((3, REGIONS)).astype(np.float32))
    obj_labels = {
        "obj": (torch.from_numpy(rng.integers(0, OBJECTS, (3, REGIONS))), conf),
        "attr": (torch.from_numpy(rng.integers(0, ATTRS, (3, REGIONS))), conf),
        "feat": (feats, conf),
    }
    return model(
        input_ids=ids, visual_feats=feats, visual_pos=torch.from_numpy(boxes), labels=torch.from_numpy(labels),
        obj_labels=obj_labels, matched_label=torch.from_numpy(rng.integers(0, 2, 3)),
        ans=torch.from_numpy(rng.integers(0, ANSWERS, 3)),
    ).loss  # fmt: skip


if __name__ == "__main__":
    run(build, loss_of)
