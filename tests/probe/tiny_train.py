"""Trains a tiny transformer on CPU for a few steps through the gpuplan probe (CI's probe check).

usage: tiny_train.py OUT.jsonl RUNS
Appends RUNS records, one per micro-batch size, to OUT.jsonl.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "probe"))
from gpuplan_probe import Probe  # noqa: E402

LAYERS, HIDDEN, HEADS, FFN, VOCAB, SEQ = 2, 64, 4, 256, 512, 32


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, HIDDEN)
        layer = torch.nn.TransformerEncoderLayer(HIDDEN, HEADS, FFN, dropout=0.0, batch_first=True)
        self.layers = torch.nn.TransformerEncoder(layer, LAYERS)
        self.head = torch.nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, ids):
        return self.head(self.layers(self.embed(ids)))


def main():
    out, runs = sys.argv[1], int(sys.argv[2])
    torch.manual_seed(0)
    arch = {"id": "tiny", "layers": LAYERS, "hidden_size": HIDDEN, "intermediate_size": FFN, "attention_heads": HEADS,
            "vocab_size": VOCAB, "mlp": "plain", "norm": "layernorm", "qkv_bias": True, "o_bias": True, "mlp_bias": True}
    for i in range(runs):
        batch = 2 + 2 * i
        model = Tiny()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        with Probe(out, model_arch=arch, method="full", precision="fp32", micro_batch=batch, seq_len=SEQ,
                   attention="eager", warmup_steps=2, run_id=f"tiny-cpu-b{batch}", device="cpu",
                   samples_per_step=batch, family="tiny") as probe:
            state = {k: v.clone() for k, v in model.state_dict().items()}
            with probe.restoring():  # a checkpoint restore, timed
                model.load_state_dict(state)
            for _ in range(8):
                ids = torch.randint(0, VOCAB, (batch, SEQ))
                loss = torch.nn.functional.cross_entropy(model(ids).reshape(-1, VOCAB), ids.reshape(-1))
                loss.backward()
                opt.step()
                opt.zero_grad()
                probe.step()
            probe.metric("train_loss", loss.item(), "lower")


if __name__ == "__main__":
    main()
