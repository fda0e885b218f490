#!/usr/bin/env python3
"""PyTorch counterpart of our C++ DeBERTa-v2/v3 model: golden check and speed step.

A plain-PyTorch re-implementation of Hugging Face's DebertaV2ForSequenceClassification (transformers
4.30.2 code paths: disentangled attention with c2p/p2c terms, share_att_key, log-bucketed relative positions,
LayerNorm'd relative embeddings, optional embed_proj / token types / absolute positions / conv layer,
ContextPooler -> classifier), module names = HF's state-dict names. No transformers/peft/safetensors import;
the LoRA layer and timing come from the sibling bench/roberta_step.py.

Run with Debian's python3-torch (the first python3 on PATH has no torch):
    $(command -v -p python3) bench/deberta_v2_step.py [--steps 5] [--threads 2]
        DeBERTaV3-base shape, batch 16 x 128, LoRA (r=8, alpha=16) on the six weight matrices of every layer,
        backbone frozen, pooler + classifier trained, AdamW. Prints ms per forward (eval, no_grad) and per
        training step (train mode, dropout 0.1, forward + loss + backward + AdamW step), median after warm-up.
    $(command -v -p python3) bench/deberta_v2_step.py --check /work/shared/golden   (or one fixture folder)
        Compares every output tensor of each deberta-v2 fixture with atol 1e-5; exit status 1 on a mismatch.
"""
import argparse
import json
import math
import os
import struct
import sys
from types import SimpleNamespace

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The sibling benchmark's batch shape, LoRA layer and timing, so that both measure the same thing.
from roberta_step import ALPHA, BATCH, RANK, SEQ, LoraLinear, time_forward_and_step  # noqa: E402

ACT = {"gelu": F.gelu, "relu": F.relu, "tanh": torch.tanh,
       "gelu_new": lambda x: F.gelu(x, approximate="tanh")}
DTYPES = {"F32": torch.float32, "F64": torch.float64, "I64": torch.int64}
# The DeBERTaV3 switches (relative attention, c2p + p2c, shared keys, normed relative embeddings, no absolute
# positions, no token types), shared by the speed model and the long fixture.
V3 = {"relative_attention": True, "pos_att_type": ["p2c", "c2p"], "share_att_key": True, "norm_rel_ebd": "layer_norm",
      "position_biased_input": False, "max_relative_positions": -1, "type_vocab_size": 0, "layer_norm_eps": 1e-7,
      "hidden_act": "gelu", "pooler_hidden_act": "gelu", "pooler_dropout": 0, "hidden_dropout_prob": 0.1,
      "attention_probs_dropout_prob": 0.1}


def config(d):
    """config.json dict -> namespace with DebertaV2Config's defaults for whatever is missing."""
    c = dict(vocab_size=128100, hidden_size=1536, num_hidden_layers=24, num_attention_heads=24,
             intermediate_size=6144, hidden_act="gelu", hidden_dropout_prob=0.1,
             attention_probs_dropout_prob=0.1, max_position_embeddings=512, type_vocab_size=0,
             layer_norm_eps=1e-7, relative_attention=False, max_relative_positions=-1, pad_token_id=0,
             position_biased_input=True, pos_att_type=None, pooler_dropout=0, pooler_hidden_act="gelu",
             share_att_key=False, position_buckets=-1, norm_rel_ebd="none", conv_kernel_size=0,
             conv_groups=1, conv_act="tanh", cls_dropout=None)
    c.update(d)
    c.setdefault("embedding_size", c["hidden_size"])
    c.setdefault("pooler_hidden_size", c["hidden_size"])
    c.setdefault("attention_head_size", c["hidden_size"] // c["num_attention_heads"])
    # PretrainedConfig derives num_labels from id2label when present (save_pretrained writes id2label).
    c["num_labels"] = len(d["id2label"]) if "id2label" in d else d.get("num_labels", 2)
    t = c["pos_att_type"] or []
    c["pos_att_type"] = [x.strip() for x in t.lower().split("|")] if isinstance(t, str) else list(t)
    if c["max_relative_positions"] < 1:  # -1 means "as many as absolute positions"
        c["max_relative_positions"] = c["max_position_embeddings"]
    # rel_embeddings has 2 * att_span rows; att_span is the bucket count when bucketing is on.
    c["att_span"] = c["position_buckets"] if c["position_buckets"] > 0 else c["max_relative_positions"]
    return SimpleNamespace(**c)


def box(**children):
    """An empty module holding children, only to reproduce HF's state-dict paths (attention.output.dense...)."""
    m = nn.Module()
    for name, child in children.items():
        m.add_module(name, child)
    return m


def relative_positions(n, buckets, max_pos):
    """HF build_relative_position: rel[i, j] = i - j, log-bucketed beyond buckets/2 (in float32, as HF)."""
    rel = torch.arange(n)[:, None] - torch.arange(n)[None, :]
    if buckets <= 0 or max_pos <= 0:
        return rel
    mid = buckets // 2
    # |d| < mid is replaced by mid-1 only to keep log() finite; those entries keep d itself below.
    abs_pos = torch.where(rel.abs() < mid, torch.tensor(mid - 1), rel.abs()).float()
    log_pos = torch.ceil(torch.log(abs_pos / mid) / torch.log(torch.tensor((max_pos - 1) / mid))
                         * (mid - 1)) + mid
    return torch.where(abs_pos <= mid, rel.float(), log_pos * torch.sign(rel)).long()


class DisentangledSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads, inner = c.num_attention_heads, c.num_attention_heads * c.attention_head_size
        self.query_proj = nn.Linear(c.hidden_size, inner)
        self.key_proj = nn.Linear(c.hidden_size, inner)
        self.value_proj = nn.Linear(c.hidden_size, inner)
        self.types = [t for t in ("c2p", "p2c") if t in c.pos_att_type]
        self.relative = c.relative_attention
        if self.relative and not c.share_att_key:
            if "c2p" in self.types:
                self.pos_key_proj = nn.Linear(c.hidden_size, inner)
            if "p2c" in self.types:
                self.pos_query_proj = nn.Linear(c.hidden_size, inner)
        self.share = c.share_att_key
        # HF takes sqrt(d * (1 + #terms)) in float32 and casts it to the activation dtype; so do we.
        self.scale = torch.sqrt(torch.tensor(float(c.attention_head_size)) * (1 + len(self.types))).item()
        self.pos_dropout = nn.Dropout(c.hidden_dropout_prob)
        self.dropout = nn.Dropout(c.attention_probs_dropout_prob)

    def split(self, x):  # (B, T, H*d) -> (B, H, T, d)
        return x.view(x.size(0), x.size(1), self.heads, -1).transpose(1, 2)

    def forward(self, h, pair_mask, rel_pos, rel_emb):
        q, k, v = self.split(self.query_proj(h)), self.split(self.key_proj(h)), self.split(self.value_proj(h))
        scores = q @ k.transpose(-1, -2) / self.scale
        if self.relative:
            rel_emb = self.pos_dropout(rel_emb)[None]
            span, n = rel_emb.size(1) // 2, h.size(1)
            bias = 0
            if "c2p" in self.types:  # query content . key-relative position embedding, indexed by i - j
                pk = self.split((self.key_proj if self.share else self.pos_key_proj)(rel_emb))
                idx = (rel_pos + span).clamp(0, 2 * span - 1).expand(q.size(0), self.heads, n, n)
                bias = bias + torch.gather(q @ pk.transpose(-1, -2), -1, idx) / self.scale
            if "p2c" in self.types:  # key content . query-relative position embedding, indexed by j - i
                pq = self.split((self.query_proj if self.share else self.pos_query_proj)(rel_emb))
                idx = (-rel_pos + span).clamp(0, 2 * span - 1).expand(q.size(0), self.heads, n, n)
                bias = bias + torch.gather(k @ pq.transpose(-1, -2), -1, idx).transpose(-1, -2) / self.scale
            scores = scores + bias
        # XSoftmax: masked pairs get finfo.min before and exact 0 after the softmax (pad query rows -> all 0).
        probs = F.softmax(scores.masked_fill(~pair_mask, torch.finfo(scores.dtype).min), -1)
        probs = self.dropout(probs.masked_fill(~pair_mask, 0))
        return (probs @ v).transpose(1, 2).reshape(h.size(0), h.size(1), -1), probs


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        ln = lambda: nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.attention = box(self=DisentangledSelfAttention(c),
                             output=box(dense=nn.Linear(c.hidden_size, c.hidden_size), LayerNorm=ln()))
        self.intermediate = box(dense=nn.Linear(c.hidden_size, c.intermediate_size))
        self.output = box(dense=nn.Linear(c.intermediate_size, c.hidden_size), LayerNorm=ln())
        self.act, self.drop = ACT[c.hidden_act], nn.Dropout(c.hidden_dropout_prob)

    def forward(self, h, pair_mask, rel_pos, rel_emb):
        ctx, probs = self.attention.self(h, pair_mask, rel_pos, rel_emb)
        out = self.attention.output
        a = out.LayerNorm(self.drop(out.dense(ctx)) + h)
        out = self.output
        return out.LayerNorm(self.drop(out.dense(self.act(self.intermediate.dense(a)))) + a), probs


class ConvLayer(nn.Module):
    """Applied once, after layer 0: LayerNorm(layer0_out + act(conv(embeddings))), pads zeroed."""

    def __init__(self, c):
        super().__init__()
        k = c.conv_kernel_size
        self.conv = nn.Conv1d(c.hidden_size, c.hidden_size, k, padding=(k - 1) // 2, groups=c.conv_groups)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.act, self.drop = ACT[c.conv_act], nn.Dropout(c.hidden_dropout_prob)

    def forward(self, x, residual, keep):
        out = self.conv(x.transpose(1, 2)).transpose(1, 2).masked_fill(~keep, 0)
        return self.LayerNorm(residual + self.act(self.drop(out))) * keep.to(x.dtype)


class DebertaV2ForSequenceClassification(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        E, H = c.embedding_size, c.hidden_size
        emb = box(word_embeddings=nn.Embedding(c.vocab_size, E, padding_idx=c.pad_token_id),
                  LayerNorm=nn.LayerNorm(H, eps=c.layer_norm_eps))
        if c.position_biased_input:
            emb.position_embeddings = nn.Embedding(c.max_position_embeddings, E)
        if c.type_vocab_size > 0:
            emb.token_type_embeddings = nn.Embedding(c.type_vocab_size, E)
        if E != H:
            emb.embed_proj = nn.Linear(E, H, bias=False)
        enc = box(layer=nn.ModuleList(Layer(c) for _ in range(c.num_hidden_layers)))
        if c.relative_attention:
            enc.rel_embeddings = nn.Embedding(2 * c.att_span, H)
        if "layer_norm" in [x.strip() for x in c.norm_rel_ebd.lower().split("|")]:
            enc.LayerNorm = nn.LayerNorm(H, eps=c.layer_norm_eps)
        if c.conv_kernel_size > 0:
            enc.conv = ConvLayer(c)
        self.deberta = box(embeddings=emb, encoder=enc)
        self.pooler = box(dense=nn.Linear(c.pooler_hidden_size, c.pooler_hidden_size))
        self.classifier = nn.Linear(H, c.num_labels)  # HF sizes it by pooler.output_dim == hidden_size
        self.emb_drop = nn.Dropout(c.hidden_dropout_prob)
        self.pool_drop = nn.Dropout(c.pooler_dropout)
        self.cls_drop = nn.Dropout(c.hidden_dropout_prob if c.cls_dropout is None else c.cls_dropout)

    def forward(self, ids, attention_mask):
        """-> logits, [embedding output, layer 1..L outputs], [attention probs of layers 1..L]."""
        c, emb, enc = self.c, self.deberta.embeddings, self.deberta.encoder
        x = emb.word_embeddings(ids)
        if c.position_biased_input:
            x = x + emb.position_embeddings(torch.arange(ids.size(1)))[None]
        if c.type_vocab_size > 0:
            x = x + emb.token_type_embeddings(torch.zeros_like(ids))  # HF's default when no token_type_ids
        if hasattr(emb, "embed_proj"):
            x = emb.embed_proj(x)
        keep = attention_mask.bool()[:, :, None]
        h = self.emb_drop(emb.LayerNorm(x) * keep.to(x.dtype))
        pair_mask = keep[:, None, :, :] & keep[:, None, None, :, 0]  # (B, 1, T, T): query i and key j real
        rel_pos = rel_emb = None
        if c.relative_attention:
            rel_pos = relative_positions(ids.size(1), c.position_buckets, c.max_relative_positions)
            rel_emb = enc.rel_embeddings.weight
            rel_emb = enc.LayerNorm(rel_emb) if hasattr(enc, "LayerNorm") else rel_emb
        hidden, attentions = [h], []
        for i, layer in enumerate(enc.layer):
            h, probs = layer(h, pair_mask, rel_pos, rel_emb)
            if i == 0 and hasattr(enc, "conv"):
                h = enc.conv(hidden[0], h, keep)
            hidden.append(h)
            attentions.append(probs)
        pooled = ACT[c.pooler_hidden_act](self.pooler.dense(self.pool_drop(h[:, 0])))
        return self.classifier(self.cls_drop(pooled)), hidden, attentions


def hf_loss(logits, labels):
    """DebertaV2ForSequenceClassification's loss: MSE for one label, else CE over rows with label >= 0."""
    if logits.size(-1) == 1:
        return F.mse_loss(logits.view(-1).to(labels.dtype), labels.view(-1))
    keep = labels >= 0
    return F.cross_entropy(logits[keep].float(), labels[keep].long())


def load_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    n = struct.unpack("<Q", blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    header.pop("__metadata__", None)
    return {k: torch.frombuffer(bytearray(blob[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]]),
                                dtype=DTYPES[v["dtype"]]).reshape(v["shape"]) for k, v in header.items()}


def load_model(folder):
    model = DebertaV2ForSequenceClassification(config(json.load(open(os.path.join(folder, "config.json")))))
    state = load_safetensors(os.path.join(folder, "model.safetensors"))
    state.pop("deberta.embeddings.position_ids", None)  # a buffer HF saves; positions are arange here
    model.load_state_dict(state, strict=True)
    return model.eval()


def outputs(model, ids, mask, labels=None, singles=None):
    """The fixture's output tensors, named as in the golden io.safetensors (singles: {b: row ids})."""
    with torch.no_grad():
        logits, hidden, atts = model(ids, mask)
        out = {"logits": logits, "last_hidden_state": hidden[-1]}
        out.update({f"hidden_states.{i}": h for i, h in enumerate(hidden)})
        out.update({f"attentions.{i}": a for i, a in enumerate(atts)})
        if labels is not None:
            out["loss"] = hf_loss(logits, labels).view(1)
        for b, row in (singles or {}).items():
            lg, hs, _ = model(row, torch.ones_like(row))
            out.update({f"single.{b}.logits": lg, f"single.{b}.last_hidden_state": hs[-1]})
        lg, hs, _ = model.double()(ids, mask)  # exact cast of the same weights: sizes float32 rounding
        out.update({"logits_f64": lg, "last_hidden_state_f64": hs[-1]})
    model.float()
    return out


def check_folder(folder, atol=1e-5):
    """Prints one line per compared group; returns False on any mismatch or any golden tensor left unchecked."""
    model, io = load_model(folder), load_safetensors(os.path.join(folder, "io.safetensors"))
    singles = {k.split(".")[1]: v for k, v in io.items() if k.startswith("single.") and k.endswith(".input_ids")}
    mine = outputs(model, io["input_ids"], io["attention_mask"], io.get("labels"), singles)
    groups = {}
    for k in mine.keys() & io.keys():
        groups.setdefault("single" if k.startswith("single.") else k.split(".")[0], []).append((mine[k], io[k]))
    unchecked = io.keys() - mine.keys() - {"input_ids", "attention_mask", "labels"} - \
        {f"single.{b}.input_ids" for b in singles}
    c = model.c
    print(f"{os.path.basename(os.path.normpath(folder))}: {c.num_hidden_layers} layers, hidden {c.hidden_size}, "
          f"buckets {c.position_buckets}, labels {c.num_labels}, inputs {list(io['input_ids'].shape)}"
          + (f", UNCHECKED {sorted(unchecked)}" if unchecked else ""))
    ok = not unchecked
    for name, pairs in sorted(groups.items()):
        same_shapes = all(a.shape == b.shape for a, b in pairs)
        err = max((a.double() - b.double()).abs().max().item() for a, b in pairs) if same_shapes else math.inf
        ok &= err <= atol
        print(f"  {name:22s} {len(pairs):2d} tensors  max_abs_err {err:.2e}  {'ok' if err <= atol else 'MISMATCH'}")
    return ok


def check(path):
    """path: a folder of fixture folders (non-deberta ones are skipped) or one fixture folder."""
    has_config = lambda f: os.path.exists(os.path.join(f, "config.json"))
    folders = [path] if has_config(path) else [os.path.join(path, d) for d in sorted(os.listdir(path))]
    folders = [f for f in folders if has_config(f)
               and json.load(open(os.path.join(f, "config.json"))).get("model_type") == "deberta-v2"]
    results = [check_folder(f) for f in folders]
    print(f"{sum(results)}/{len(results)} deberta-v2 fixtures pass")
    return bool(results) and all(results)


def speed(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    c = config({**V3, "vocab_size": 128100, "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
                "intermediate_size": 3072, "max_position_embeddings": 512, "position_buckets": 256, "num_labels": 2})
    model = DebertaV2ForSequenceClassification(c)
    for layer in model.deberta.encoder.layer:  # LoRA on all six weight matrices of every layer
        for parent, name in [(layer.attention.self, "query_proj"), (layer.attention.self, "key_proj"),
                             (layer.attention.self, "value_proj"), (layer.attention.output, "dense"),
                             (layer.intermediate, "dense"), (layer.output, "dense")]:
            setattr(parent, name, LoraLinear(getattr(parent, name), RANK, ALPHA))
    for name, p in model.named_parameters():
        p.requires_grad_(name.endswith(".A") or name.endswith(".B") or name.startswith(("pooler.", "classifier.")))
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=1e-4, weight_decay=0.1)
    ids = torch.randint(3, c.vocab_size, (BATCH, SEQ))
    ids[:, 0], ids[:, -1] = 1, 2  # [CLS] ... [SEP]
    attention_mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    labels = torch.randint(0, c.num_labels, (BATCH,))

    time_forward_and_step(lambda: model(ids, attention_mask)[0], model, labels, optimizer, trainable, args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--check", metavar="DIR", help="golden dir (or one fixture folder) to compare against")
    args = parser.parse_args()
    if args.check:
        sys.exit(0 if check(args.check) else 1)
    speed(args)


if __name__ == "__main__":
    main()
