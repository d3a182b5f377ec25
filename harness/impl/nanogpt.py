"""nanoGPT training without torch: the model of harness/record/nanogpt_model.py and the loop of
harness/record/nanogpt_train.py, bit for bit under a ``KernelProfile``.

Written in llm.c's style: one explicit forward and one explicit backward per layer, the backward
taking what its forward saved. Every kernel comes from the other impl modules (rng, linalg, rows,
unary, attention, reduce, optim); this file only composes them in the order torch runs them:

- initialisation: ``torch.manual_seed(seed)``, then the modules' own default inits as GPT's
  constructor builds them (nn.Embedding ``normal_(0, 1)``, nn.Linear ``kaiming_uniform_(a=sqrt(5))``
  weight and ``uniform_`` bias), then nanoGPT's ``_init_weights`` in ``Module.apply`` order
  (children first), then the c_proj weights again; all from one generator, which then serves the
  dropout masks of training;
- forward: embeddings, dropout, blocks (LayerNorm, attention through SDPA's math path because
  dropout > 0 in training, residual, LayerNorm, GELU MLP, residual), final LayerNorm, tied
  lm_head, cross-entropy (ignore_index -1);
- backward: the reverse, each gradient of a tensor used twice summed as autograd sums it;
- ``clip_grad_norm_`` (foreach path), AdamW (single-tensor path, decay on tensors of dim >= 2).

See harness/impl/notes/nanogpt.md for the accumulation orders and what differs between profiles.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import NamedTuple, Protocol

import numpy as np

from harness.impl import attention, linalg, rng, rows, unary
from harness.impl.optim import AdamW
from harness.impl.profiles import KernelProfile
from harness.impl.reduce import clip_grad_norm, sum_dims
from harness.workloads.nanogpt import TrainConfig, get_lr

LN_EPS = 1e-5
IGNORE_INDEX = -1
Batch = tuple[np.ndarray, np.ndarray]
THREADS = min(os.cpu_count() or 1, 16)  # for the matrix products: any count gives the same bits


class ImplObserver(Protocol):
    """What a recorder sees of the impl's training run, in execution order (param order =
    torch's ``model.named_parameters()``; the tied lm_head.weight is not listed)."""

    def on_init(self, names: list[str], params: list[np.ndarray]) -> None: ...
    def after_forward(self, logits: np.ndarray, loss: np.ndarray, masks: list[np.ndarray]) -> None: ...
    def after_backward(self, grads: list[np.ndarray]) -> None: ...
    def after_clip(self, total_norm: np.ndarray, clip_coef: np.ndarray) -> None: ...
    def after_step(
        self,
        step: int,
        lr: float,
        params: list[np.ndarray],
        grads: list[np.ndarray],
        exp_avg: list[np.ndarray],
        exp_avg_sq: list[np.ndarray],
    ) -> None: ...


# ----------------------------------------------------------------------------- parameters


def param_shapes(cfg: TrainConfig) -> dict[str, tuple[int, ...]]:
    """Parameter names and shapes in ``named_parameters()`` order."""
    c, v = cfg.n_embd, cfg.vocab_size
    shapes: dict[str, tuple[int, ...]] = {
        "transformer.wte.weight": (v, c),
        "transformer.wpe.weight": (cfg.block_size, c),
    }

    def add(prefix: str, out: int | None, inp: int) -> None:  # out None: a LayerNorm of inp
        if out is None:
            shapes[f"{prefix}.weight"] = (inp,)
        else:
            shapes[f"{prefix}.weight"] = (out, inp)
        if cfg.bias:
            shapes[f"{prefix}.bias"] = (out if out is not None else inp,)

    for i in range(cfg.n_layer):
        h = f"transformer.h.{i}"
        add(f"{h}.ln_1", None, c)
        add(f"{h}.attn.c_attn", 3 * c, c)
        add(f"{h}.attn.c_proj", c, c)
        add(f"{h}.ln_2", None, c)
        add(f"{h}.mlp.c_fc", 4 * c, c)
        add(f"{h}.mlp.c_proj", c, 4 * c)
    add("transformer.ln_f", None, c)
    return shapes


def _linear_modules(cfg: TrainConfig) -> list[str]:
    """The nn.Linear modules in construction order (= Module.apply order); the tied lm_head last."""
    per_block = ("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj")
    return [f"transformer.h.{i}.{m}" for i in range(cfg.n_layer) for m in per_block] + ["lm_head"]


def init_params(cfg: TrainConfig, gen: rng.CPUGenerator, profile: KernelProfile) -> dict[str, np.ndarray]:
    """GPT(config) right after ``torch.manual_seed``: every draw in torch's order, from ``gen``."""
    shapes = param_shapes(cfg)
    wte_shape = shapes["transformer.wte.weight"]
    p: dict[str, np.ndarray] = {}

    def normal(shape: tuple[int, ...], std: float) -> np.ndarray:
        return rng.normal_(gen, math.prod(shape), 0.0, std, profile).reshape(shape)

    def uniform(shape: tuple[int, ...], bound: float) -> np.ndarray:
        return rng.uniform_(gen, math.prod(shape), -bound, bound, profile).reshape(shape)

    # 1. construction: nn.Embedding.reset_parameters (normal_(0, 1)), nn.Linear.reset_parameters
    #    (kaiming_uniform_(a=sqrt(5)): bound = sqrt(3) * gain / sqrt(fan_in); bias bound 1/sqrt(fan_in)),
    #    LayerNorm ones/zeros (no draw)
    normal(wte_shape, 1.0)
    p["transformer.wpe.weight"] = normal(shapes["transformer.wpe.weight"], 1.0)
    gain = math.sqrt(2.0 / (1 + math.sqrt(5) ** 2))
    for name in _linear_modules(cfg):
        shape = wte_shape if name == "lm_head" else shapes[f"{name}.weight"]
        fan_in = shape[1]
        p[f"{name}.weight"] = uniform(shape, math.sqrt(3.0) * (gain / math.sqrt(fan_in)))
        if cfg.bias and name != "lm_head":
            p[f"{name}.bias"] = uniform(shapes[f"{name}.bias"], 1 / math.sqrt(fan_in))
    for name, shape in shapes.items():
        if ".ln_" in name:
            p[name] = np.ones(shape, np.float32) if name.endswith("weight") else np.zeros(shape, np.float32)
    # 2. _init_weights in Module.apply order: wte, wpe, then the Linears (biases zeroed), lm_head last;
    #    wte and lm_head are one tensor: the lm_head draw overwrites the wte draw
    normal(wte_shape, 0.02)
    p["transformer.wpe.weight"] = normal(shapes["transformer.wpe.weight"], 0.02)
    for name in _linear_modules(cfg):
        p["transformer.wte.weight" if name == "lm_head" else f"{name}.weight"] = normal(
            wte_shape if name == "lm_head" else shapes[f"{name}.weight"], 0.02
        )
        if cfg.bias and name != "lm_head":
            p[f"{name}.bias"] = np.zeros(shapes[f"{name}.bias"], np.float32)
    # 3. the residual projections, in named_parameters order
    for name in shapes:
        if name.endswith("c_proj.weight"):
            p[name] = normal(shapes[name], 0.02 / math.sqrt(2 * cfg.n_layer))
    return {name: np.ascontiguousarray(p[name]) for name in shapes}


# ----------------------------------------------------------------------------- layers
# B batch, T sequence length, C n_embd, NH heads, HS = C / NH, V vocab. Each forward returns
# (output, cache); each backward takes the output's gradient and the cache.


@dataclass
class Ctx:
    """What every layer needs: the kernel profile, the generator the dropout masks come from, and
    the masks of the current forward in draw order."""

    profile: KernelProfile
    gen: rng.CPUGenerator
    dropout_p: float
    masks: list[np.ndarray]
    training: bool = True  # eval mode (model.eval()): no dropout, attention through the flash kernel


def dropout_forward(ctx: Ctx, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """nn.Dropout in training (CPU: noise = bernoulli_(1-p) / (1-p); out = x * noise); the
    identity in eval mode (noise None, nothing drawn)."""
    if not ctx.training:
        return x, None
    out, noise = rng.dropout(x, ctx.dropout_p, ctx.gen, ctx.profile)
    ctx.masks.append(noise)
    return out, noise


def embeddings_forward(ctx: Ctx, idx: np.ndarray, wte: np.ndarray, wpe: np.ndarray) -> tuple[np.ndarray, tuple]:
    """drop(wte(idx) + wpe(arange(T))): idx (B,T) -> (B,T,C); tok (B,T,C) + pos (T,C) broadcast."""
    t = idx.shape[1]
    tok = linalg.embedding(idx, wte)
    pos = linalg.embedding(np.arange(t, dtype=np.int64), wpe)
    out, noise = dropout_forward(ctx, tok + pos)
    return out, (idx, noise)


def embeddings_backward(
    ctx: Ctx, dout: np.ndarray, cache: tuple, vocab: int, block_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """(dwte from the embedding alone, dwpe): dropout backward, the broadcast add's sum_to over the
    batch for pos, embedding_dense_backward for both tables."""
    idx, noise = cache
    dx = rng.dropout_backward(dout, noise)  # (B,T,C)
    dpos = sum_dims(dx, (0,), ctx.profile)  # (T,C)
    dwte = linalg.embedding_backward(dx, idx, vocab)  # (V,C)
    dwpe = linalg.embedding_backward(dpos, np.arange(idx.shape[1], dtype=np.int64), block_size)
    return dwte, dwpe


def layernorm_forward(ctx: Ctx, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> tuple[np.ndarray, tuple]:
    """F.layer_norm over C (eps 1e-5); without a bias, beta = 0 gives the same bits."""
    bias = b if b is not None else np.zeros_like(w)
    y, mean, rstd = rows.layer_norm(x, w, bias, LN_EPS, ctx.profile)
    return y, (x, mean, rstd, w)


def layernorm_backward(ctx: Ctx, dout: np.ndarray, cache: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, mean, rstd, w = cache
    return rows.layer_norm_backward(dout, x, mean, rstd, w, ctx.profile)


def linear_forward(ctx: Ctx, x: np.ndarray, w: np.ndarray, b: np.ndarray | None) -> tuple[np.ndarray, tuple]:
    """nn.Linear (as linalg.linear): x (B,T,K) -> (B,T,N); addmm(b, x2d, w^T) with a bias,
    mm(x2d, w^T) without."""
    x2 = x.reshape(-1, x.shape[-1])
    if b is None:
        out = linalg.mm(x2, w.T, ctx.profile, threads=THREADS)
    else:
        out = linalg.addmm(b, x2, w.T, ctx.profile, threads=THREADS)
    return out.reshape(*x.shape[:-1], w.shape[0]), (x, w, b is not None)


def linear_backward(ctx: Ctx, dout: np.ndarray, cache: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(dx, dw, db) as linalg.linear_backward: dx = dout2d @ w; dw = dout2d^T @ x2d, the (N, K)
    product autograd runs for the column-major w^T (the (K, N) product x2d^T @ dout2d, transposed,
    has other bits where MKL's thread grid gives it a column block narrower than 12);
    db = dout2d.sum(0) (ATen's sum kernel)."""
    x, w, has_bias = cache
    g2 = dout.reshape(-1, dout.shape[-1])
    x2 = x.reshape(-1, x.shape[-1])
    dx = linalg.mm(g2, w, ctx.profile, threads=THREADS).reshape(x.shape)
    dw = linalg.mm(g2, x2, ctx.profile, trans_a=True, threads=THREADS)
    db = sum_dims(g2, (0,), ctx.profile) if has_bias else None
    return dx, dw, db


def attention_forward(ctx: Ctx, qkv: np.ndarray, n_head: int) -> tuple[np.ndarray, tuple]:
    """Causal self-attention through SDPA's math path (torch takes it when dropout_p > 0):
    split qkv (B,T,3C) -> q, k, v (B,NH,T,HS), attention.sdpa_math_forward (draws the attention
    dropout mask from ctx.gen), heads side by side again -> (B,T,C)."""
    b, t, c3 = qkv.shape
    hs = c3 // 3 // n_head
    q, k, v = qkv.reshape(b, t, 3, n_head, hs).transpose(2, 0, 3, 1, 4)  # (B,NH,T,HS) views
    if not ctx.training:  # dropout_p 0 and no grad: torch takes the flash kernel
        y = attention.sdpa_forward(q, k, v, ctx.profile).out
        return np.ascontiguousarray(y.transpose(0, 2, 1, 3)).reshape(b, t, c3 // 3), None
    y, saved = attention.sdpa_math_forward(q, k, v, ctx.dropout_p, ctx.gen, ctx.profile)
    ctx.masks.append(saved.noise)
    return np.ascontiguousarray(y.transpose(0, 2, 1, 3)).reshape(b, t, c3 // 3), (saved, qkv.shape, n_head)


def attention_backward(ctx: Ctx, dout: np.ndarray, cache: tuple) -> np.ndarray:
    """-> dqkv (B,T,3C): attention.sdpa_math_backward (autograd through the math path), then
    split's backward (cat of dq, dk, dv)."""
    saved, shape, n_head = cache
    b, t, c3 = shape
    hs = c3 // 3 // n_head
    dy = dout.reshape(b, t, n_head, hs).transpose(0, 2, 1, 3)  # (B,NH,T,HS)
    dqkv = np.empty((b, t, 3, n_head, hs), np.float32)
    for j, d in enumerate(attention.sdpa_math_backward(dy, saved, ctx.profile)):
        dqkv[:, :, j] = d.transpose(0, 2, 1, 3)
    return dqkv.reshape(shape)


def gelu_forward(ctx: Ctx, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return unary.forward("gelu", x, ctx.profile), x


def gelu_backward(ctx: Ctx, dout: np.ndarray, x: np.ndarray) -> np.ndarray:
    return unary.backward("gelu", dout, x, x, ctx.profile)


def crossentropy_forward(ctx: Ctx, logits: np.ndarray, targets: np.ndarray) -> tuple[np.ndarray, tuple]:
    """F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=-1): log_softmax, nll mean."""
    v = logits.shape[-1]
    loss, lsm, total_weight = rows.cross_entropy(logits.reshape(-1, v), targets.reshape(-1), ctx.profile, IGNORE_INDEX)
    return loss, (lsm, targets.reshape(-1), total_weight, logits.shape)


def crossentropy_backward(ctx: Ctx, cache: tuple, dloss: float = 1.0) -> np.ndarray:
    """dlogits (B,T,V) for the loss gradient ``dloss`` (loss.backward(): 1)."""
    lsm, targets, total_weight, shape = cache
    return rows.cross_entropy_backward(dloss, lsm, targets, total_weight, ctx.profile, IGNORE_INDEX).reshape(shape)


# ----------------------------------------------------------------------------- model

Params = dict[str, np.ndarray]


def _wb(p: Params, prefix: str) -> tuple[np.ndarray, np.ndarray | None]:
    return p[f"{prefix}.weight"], p.get(f"{prefix}.bias")


def _put(grads: Params, prefix: str, dw: np.ndarray, db: np.ndarray | None) -> None:
    grads[f"{prefix}.weight"] = dw
    if db is not None and f"{prefix}.bias" in grads:
        grads[f"{prefix}.bias"] = db


def block_forward(ctx: Ctx, x: np.ndarray, p: Params, h: str, n_head: int) -> tuple[np.ndarray, dict]:
    """x (B,T,C) -> x + attn(ln_1(x)), then + mlp(ln_2(.)); dropout on both branch outputs."""
    c: dict = {}
    ln1, c["ln_1"] = layernorm_forward(ctx, x, *_wb(p, f"{h}.ln_1"))
    qkv, c["c_attn"] = linear_forward(ctx, ln1, *_wb(p, f"{h}.attn.c_attn"))  # (B,T,3C)
    y, c["attn"] = attention_forward(ctx, qkv, n_head)  # (B,T,C)
    a, c["attn_proj"] = linear_forward(ctx, y, *_wb(p, f"{h}.attn.c_proj"))
    a, c["resid_dropout"] = dropout_forward(ctx, a)
    x = x + a
    ln2, c["ln_2"] = layernorm_forward(ctx, x, *_wb(p, f"{h}.ln_2"))
    f, c["c_fc"] = linear_forward(ctx, ln2, *_wb(p, f"{h}.mlp.c_fc"))  # (B,T,4C)
    g, c["gelu"] = gelu_forward(ctx, f)
    m, c["mlp_proj"] = linear_forward(ctx, g, *_wb(p, f"{h}.mlp.c_proj"))  # (B,T,C)
    m, c["mlp_dropout"] = dropout_forward(ctx, m)
    return x + m, c


def block_backward(ctx: Ctx, dx: np.ndarray, c: dict, grads: Params, h: str) -> np.ndarray:
    """The block's backward; dx (B,T,C) is the gradient of its output. A residual's input gets the
    add's gradient and its LayerNorm branch's gradient: two terms, so their order changes no bit."""
    dm = rng.dropout_backward(dx, c["mlp_dropout"])
    dg, dw, db = linear_backward(ctx, dm, c["mlp_proj"])
    _put(grads, f"{h}.mlp.c_proj", dw, db)
    df = gelu_backward(ctx, dg, c["gelu"])
    dln2, dw, db = linear_backward(ctx, df, c["c_fc"])
    _put(grads, f"{h}.mlp.c_fc", dw, db)
    dres, dw, db = layernorm_backward(ctx, dln2, c["ln_2"])
    _put(grads, f"{h}.ln_2", dw, db)
    dx = dx + dres
    da = rng.dropout_backward(dx, c["resid_dropout"])
    dy, dw, db = linear_backward(ctx, da, c["attn_proj"])
    _put(grads, f"{h}.attn.c_proj", dw, db)
    dqkv = attention_backward(ctx, dy, c["attn"])
    dln1, dw, db = linear_backward(ctx, dqkv, c["c_attn"])
    _put(grads, f"{h}.attn.c_attn", dw, db)
    dres, dw, db = layernorm_backward(ctx, dln1, c["ln_1"])
    _put(grads, f"{h}.ln_1", dw, db)
    return dx + dres


def gpt_forward(ctx: Ctx, cfg: TrainConfig, p: Params, idx: np.ndarray, targets: np.ndarray) -> tuple:
    """idx, targets (B,T) -> logits (B,T,V), loss (0-d), caches."""
    caches: dict = {}
    x, caches["emb"] = embeddings_forward(ctx, idx, p["transformer.wte.weight"], p["transformer.wpe.weight"])
    for i in range(cfg.n_layer):
        x, caches[i] = block_forward(ctx, x, p, f"transformer.h.{i}", cfg.n_head)
    x, caches["ln_f"] = layernorm_forward(ctx, x, *_wb(p, "transformer.ln_f"))
    logits, caches["lm_head"] = linear_forward(ctx, x, p["transformer.wte.weight"], None)  # (B,T,V)
    loss, caches["loss"] = crossentropy_forward(ctx, logits, targets)
    return logits, loss, caches


def gpt_backward(
    ctx: Ctx, cfg: TrainConfig, caches: dict, shapes: dict[str, tuple[int, ...]], dloss: float = 1.0
) -> Params:
    """loss.backward() (``dloss``: the loss's gradient, 1 unless the loss was scaled): the gradients
    in named_parameters order. The tied wte gets the lm_head gradient and the embedding gradient:
    two terms, summed once."""
    grads: Params = dict.fromkeys(shapes)  # type: ignore[arg-type]
    dlogits = crossentropy_backward(ctx, caches["loss"], dloss)
    dx, dwte_head, _ = linear_backward(ctx, dlogits, caches["lm_head"])
    dx, dw, db = layernorm_backward(ctx, dx, caches["ln_f"])
    _put(grads, "transformer.ln_f", dw, db)
    for i in reversed(range(cfg.n_layer)):
        dx = block_backward(ctx, dx, caches[i], grads, f"transformer.h.{i}")
    dwte_emb, dwpe = embeddings_backward(ctx, dx, caches["emb"], cfg.vocab_size, cfg.block_size)
    grads["transformer.wte.weight"] = dwte_head + dwte_emb
    grads["transformer.wpe.weight"] = dwpe
    return grads


# ----------------------------------------------------------------------------- training


def clip_coef(total_norm: np.ndarray, max_norm: float) -> np.ndarray:
    """clamp(max_norm / (total_norm + 1e-6), max=1.0) as torch's tensor ops compute it: the float32
    add, Python-float / tensor = reciprocal * max_norm, clamp."""
    one = np.float32(1.0)
    coef = (one / (total_norm + np.float32(1e-6))) * np.float32(max_norm)
    return np.minimum(coef, one).reshape(())


def make_optimizer(cfg: TrainConfig, params: list[np.ndarray], profile: KernelProfile) -> AdamW:
    """configure_optimizers: AdamW, decay on dim >= 2 (group 0), none on the rest (group 1)."""
    return AdamW(
        [([q for q in params if q.ndim >= 2], cfg.weight_decay), ([q for q in params if q.ndim < 2], 0.0)],
        lr=cfg.learning_rate,
        betas=(cfg.beta1, cfg.beta2),
        eps=1e-8,
        profile=profile,
    )


def train(
    cfg: TrainConfig,
    batches: list[Batch],
    profile: KernelProfile,
    observer: ImplObserver | None = None,
    steps: int | None = None,
) -> None:
    """nanogpt_train.train without torch: ``steps`` (default cfg.steps) iterations over ``batches``.

    The observer gets the live arrays (params, grads, moments); copy what must outlive the call.
    """
    _gen, shapes, names, p, params, opt, order, slot, ctx = start_training(cfg, profile)
    if observer:
        observer.on_init(names, [q.copy() for q in params])
    n_steps = cfg.steps if steps is None else steps
    for it, (x, y) in zip(range(n_steps), batches, strict=False):
        lr = get_lr(it, cfg)
        opt.lr = lr
        ctx.masks = []
        logits, loss, caches = gpt_forward(ctx, cfg, p, x, y)
        if observer:
            observer.after_forward(logits, loss, ctx.masks)
        del logits
        grad_map = gpt_backward(ctx, cfg, caches, shapes)
        del caches
        grads = [grad_map[n] for n in names]
        if observer:
            observer.after_backward(grads)
        total, grads = clip_grad_norm(grads, cfg.grad_clip, profile)
        if observer:
            observer.after_clip(total, clip_coef(total, cfg.grad_clip))
        opt.step([grads[i] for i in order])
        if observer:
            observer.after_step(it + 1, lr, params, grads, *moments(opt, slot, len(params)))


class TrainingStart(NamedTuple):
    """A run at its start: the generator, parameters (shapes, names, by name, in order), the
    optimizer with its group order and state slots, and the ops' context."""

    gen: rng.CPUGenerator
    shapes: dict[str, tuple[int, ...]]
    names: list[str]
    p: Params
    params: list[np.ndarray]
    opt: AdamW
    order: list[int]
    slot: dict[int, int]
    ctx: Ctx


def start_training(cfg: TrainConfig, profile: KernelProfile) -> TrainingStart:
    """The seeded generator, nanoGPT's initial weights drawn from it, and AdamW over them."""
    gen = rng.CPUGenerator(cfg.seed)
    shapes = param_shapes(cfg)
    names = list(shapes)
    p = init_params(cfg, gen, profile)
    params = [p[n] for n in names]
    opt = make_optimizer(cfg, params, profile)
    order, slot = optimizer_order(opt, params)
    return TrainingStart(gen, shapes, names, p, params, opt, order, slot, Ctx(profile, gen, cfg.dropout, []))


def optimizer_order(opt: AdamW, params: list[np.ndarray]) -> tuple[list[int], dict[int, int]]:
    """(the named index of each optimizer parameter, in group order; named index -> state index)."""
    order = [next(i for i, q in enumerate(params) if q is o) for o in opt.params()]
    return order, {i: k for k, i in enumerate(order)}


def moments(opt: AdamW, slot: dict[int, int], n: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """AdamW's exp_avg and exp_avg_sq in named_parameters order."""
    states = [opt.state[slot[i]] for i in range(n)]
    exp_avg = [s.exp_avg for s in states if s.exp_avg is not None]
    exp_avg_sq = [s.exp_avg_sq for s in states if s.exp_avg_sq is not None]
    return exp_avg, exp_avg_sq
