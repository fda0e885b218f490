"""Renders what a masked-image-modelling ViT backbone (capaboost backbone --profile mini-vit) reconstructs:
held-out Fashion-MNIST training images (the last 5,000, which pre-training never trained on), each as the
original, the input with half its patches masked, and the model's reconstruction of the masked patches
pasted into the visible ones. Re-implements transformers' ViTForMaskedImageModeling forward pass with
plain PyTorch ops from the checkpoint's safetensors file (an independent reading of the directory the
suite wrote) and prints the masked-pixel L1 loss it measures, to compare with pretrain.json.

usage: python3 render_mim_reconstructions.py BACKBONE_DIR OUT.png [--images 8] [--seed 0]
       (the system interpreter with Debian's python3-torch: `command -v -p python3`)
"""
import argparse
import gzip
import json
import math
import struct
import zlib

import torch
import torch.nn.functional as F

IMAGES = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"


def read_safetensors(path):
    with open(path, "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
        data = f.read()
    dtypes = {"F32": torch.float32, "F64": torch.float64, "I64": torch.int64}
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        start, end = entry["data_offsets"]
        tensors[name] = torch.frombuffer(bytearray(data[start:end]), dtype=dtypes[entry["dtype"]]).reshape(entry["shape"])
    return tensors


def read_idx_images(path):
    with gzip.open(path, "rb") as f:
        magic, count, rows, cols = struct.unpack(">IIII", f.read(16))
        assert magic == 0x803, "not an IDX image file"
        return torch.frombuffer(bytearray(f.read()), dtype=torch.uint8).reshape(count, rows, cols)


def forward(w, config, pixels, masked):
    """transformers' ViTForMaskedImageModeling: pixels (B, C, S, S), masked (B, P) bool → reconstruction."""
    hidden, heads, eps = config["hidden_size"], config["num_attention_heads"], config["layer_norm_eps"]
    patch = config["patch_size"]
    x = F.conv2d(pixels, w["vit.embeddings.patch_embeddings.projection.weight"],
                 w["vit.embeddings.patch_embeddings.projection.bias"], stride=patch).flatten(2).transpose(1, 2)
    m = masked.unsqueeze(-1).float()
    x = x * (1 - m) + w["vit.embeddings.mask_token"].expand_as(x) * m
    x = torch.cat([w["vit.embeddings.cls_token"].expand(x.shape[0], -1, -1), x], 1) + w["vit.embeddings.position_embeddings"]
    batch, tokens, _ = x.shape
    for i in range(config["num_hidden_layers"]):
        p = f"vit.encoder.layer.{i}."
        h = F.layer_norm(x, (hidden,), w[p + "layernorm_before.weight"], w[p + "layernorm_before.bias"], eps)
        def project(name):
            y = F.linear(h, w[p + f"attention.attention.{name}.weight"], w[p + f"attention.attention.{name}.bias"])
            return y.view(batch, tokens, heads, hidden // heads).transpose(1, 2)
        q, k, v = project("query"), project("key"), project("value")
        attention = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hidden // heads), -1)
        context = (attention @ v).transpose(1, 2).reshape(batch, tokens, hidden)
        x = x + F.linear(context, w[p + "attention.output.dense.weight"], w[p + "attention.output.dense.bias"])
        h = F.layer_norm(x, (hidden,), w[p + "layernorm_after.weight"], w[p + "layernorm_after.bias"], eps)
        h = F.gelu(F.linear(h, w[p + "intermediate.dense.weight"], w[p + "intermediate.dense.bias"]))
        x = x + F.linear(h, w[p + "output.dense.weight"], w[p + "output.dense.bias"])
    x = F.layer_norm(x, (hidden,), w["vit.layernorm.weight"], w["vit.layernorm.bias"], eps)[:, 1:]
    side = int(math.sqrt(x.shape[1]))
    grid = x.transpose(1, 2).reshape(batch, hidden, side, side)
    return F.pixel_shuffle(F.conv2d(grid, w["decoder.0.weight"], w["decoder.0.bias"]), config["encoder_stride"])


def write_png(path, gray):
    """gray: uint8 (H, W) → an 8-bit grayscale PNG, unfiltered rows."""
    height, width = gray.shape
    raw = b"".join(b"\x00" + bytes(gray[y].tolist()) for y in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("backbone")
    parser.add_argument("out")
    parser.add_argument("--images", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    config = json.load(open(f"{args.backbone}/config.json"))
    processor = json.load(open(f"{args.backbone}/preprocessor_config.json"))
    record = json.load(open(f"{args.backbone}/pretrain.json"))
    weights = read_safetensors(f"{args.backbone}/model.safetensors")
    heldout = record["images"]["heldout"]
    images = read_idx_images(IMAGES)[heldout["first"]:heldout["first"] + heldout["count"]]
    mean, std = processor["image_mean"][0], processor["image_std"][0]
    pixels = ((images.double() * processor["rescale_factor"]).float() - mean) / std  # (N, S, S)
    pixels = pixels.unsqueeze(1)
    patch, side = config["patch_size"], config["image_size"] // config["patch_size"]
    generator = torch.Generator().manual_seed(args.seed)
    ratio = record["key_material"]["pretrain"]["mask_ratio"]
    masked = torch.stack([torch.randperm(side * side, generator=generator) < round(ratio * side * side)
                          for _ in range(pixels.shape[0])])
    with torch.no_grad():
        total, count = 0.0, 0
        for start in range(0, pixels.shape[0], 500):
            batch, mask = pixels[start:start + 500], masked[start:start + 500]
            reconstruction = forward(weights, config, batch, mask)
            pixel_mask = mask.view(-1, side, side).repeat_interleave(patch, 1).repeat_interleave(patch, 2).unsqueeze(1)
            total += ((batch - reconstruction).abs() * pixel_mask).sum().item()
            count += pixel_mask.sum().item()
        print(f"masked-pixel L1 on {pixels.shape[0]} held-out images (random masks): {total / count:.4f} "
              f"(pretrain.json: {record['result']['final_heldout_loss']:.4f})")
        shown = pixels[:args.images]
        reconstruction = forward(weights, config, shown, masked[:args.images])
    pixel_mask = masked[:args.images].view(-1, side, side).repeat_interleave(patch, 1).repeat_interleave(patch, 2).unsqueeze(1)
    masked_input = torch.where(pixel_mask, torch.full_like(shown, 0.0), shown)  # masked patches grey (0 = mid-grey)
    filled = torch.where(pixel_mask, reconstruction, shown)
    to_bytes = lambda x: ((x * std + mean) * 255).round().clamp(0, 255).to(torch.uint8)
    rows = [torch.cat([to_bytes(a[0]), torch.full((28, 2), 255, dtype=torch.uint8), to_bytes(b[0]),
                       torch.full((28, 2), 255, dtype=torch.uint8), to_bytes(c[0])], 1)
            for a, b, c in zip(shown, masked_input, filled)]
    sheet = torch.cat([torch.cat([r, torch.full((2, r.shape[1]), 255, dtype=torch.uint8)]) for r in rows])
    write_png(args.out, sheet.repeat_interleave(4, 0).repeat_interleave(4, 1))


if __name__ == "__main__":
    main()
