"""Decision Transformer (Hugging Face transformers, tiny configuration): offline reinforcement learning
as sequence modelling. Returns-to-go, states and actions, each embedded by its own linear layer plus a
learned embedding of the time step, interleaved by `stack`, `permute` and `reshape` into one sequence
of 3 tokens a step, layer-normed, for a GPT-2 (its learned positions added again), trajectories of 3
lengths padded on the left and masked, a tanh action head, and a mean squared error over the actions of
the unpadded steps picked by a boolean mask (an `index`, whose backward is an accumulating `index_put_`)."""

import numpy as np
import torch
from common import run
from transformers import DecisionTransformerConfig, DecisionTransformerModel

STATE, ACTION, STEPS, EPISODE = 11, 3, 8, 64


def build() -> DecisionTransformerModel:
    config = DecisionTransformerConfig(
        state_dim=STATE, act_dim=ACTION, hidden_size=32, max_ep_len=EPISODE, n_layer=2, n_head=2, n_inner=64,
        n_positions=3 * STEPS, activation_function="relu", bos_token_id=None, eos_token_id=None,
    )  # fmt: skip
    return DecisionTransformerModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The mean squared error of the predicted actions against random actions in (-1, 1) (batch 4, 8 steps:
    two trajectories whole, two padded on the left to 8 from 5 and 3 steps), rewards and returns-to-go made
    in NumPy, time steps from random starts within the episode."""
    batch = 4
    states = rng.standard_normal((batch, STEPS, STATE)).astype(np.float32)
    actions = rng.uniform(-1.0, 1.0, (batch, STEPS, ACTION)).astype(np.float32)
    rewards = rng.standard_normal((batch, STEPS, 1)).astype(np.float32)
    returns = np.cumsum(rewards[:, ::-1], axis=1)[:, ::-1].astype(np.float32)  # the return to go at each step
    start = rng.integers(0, EPISODE - STEPS, (batch, 1))
    mask = np.ones((batch, STEPS), np.float32)
    for row, length in zip((2, 3), (5, 3), strict=True):
        mask[row, : STEPS - length] = 0.0
    for x in (states, actions, rewards, returns):
        x[mask == 0] = 0.0
    out = model(
        states=torch.from_numpy(states),
        actions=torch.from_numpy(actions),
        rewards=torch.from_numpy(rewards),
        returns_to_go=torch.from_numpy(np.ascontiguousarray(returns)),
        timesteps=torch.from_numpy(start + np.arange(STEPS)[None, :]),
        attention_mask=torch.from_numpy(mask),
    )
    keep = torch.from_numpy(mask > 0)
    return ((out.action_preds[keep] - torch.from_numpy(actions)[keep]) ** 2).mean()


if __name__ == "__main__":
    run(build, loss_of)
