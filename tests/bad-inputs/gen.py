#!/usr/bin/env python3
"""Regenerates the bad-input files under files/ (text and binary). Run from anywhere:
   python3 tests/bad-inputs/gen.py
The files are committed; the runner does not need this script."""
import json, os, struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "files")
os.makedirs(OUT, exist_ok=True)

GPU = """gpus:
  - id: card
    name: Card
    vendor: nvidia
    architecture: ada
    form: consumer
    memory_gib: 24
    memory_bandwidth_gbps: 1008
    tflops:
      fp32: 82.6
      bf16: 165.2
    tdp_watts: 450
    interconnect:
      kind: pcie4
      bandwidth_gbps: 32
    ecc: false
"""

PROVIDER = """providers:
  - id: cloud
    name: Cloud
    currency: USD
    prices_as_of: 2026-01-15
    source: https://example.com/prices
    billing_increment_seconds: 1
    offers:
      - id: x1
        gpu: rtx-4090
        gpus: 1
        region: any
        on_demand_per_gpu_hour: 0.69
"""

MODEL = """models:
  - id: tiny
    name: Tiny
    family: llama
    layers: 32
    hidden_size: 4096
    intermediate_size: 14336
    attention_heads: 32
    kv_heads: 8
    head_dim: 128
    vocab_size: 128256
    tied_embeddings: false
    mlp: gated
    norm: rmsnorm
    max_context: 131072
    params: 8030261248
"""

def w(name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(OUT, name), mode) as f:
        f.write(data)

def sub(text, old, new):
    assert old in text, old
    return text.replace(old, new, 1)

# --- YAML catalogs -------------------------------------------------------
w("truncated.yaml", GPU[: GPU.index("    tflops:") + len("    tflops:\n      fp32: [82.6, ")])
w("truncated-midkey.yaml", GPU[: GPU.index("memory_gib") + len("memory_gi")])
w("truncated-flow.yaml", GPU[: GPU.index("    tflops:")] + "    tflops: {fp32: 82.6, bf16: 16")
w("truncated-quote.yaml", sub(GPU, "name: Card", 'name: "Card'))
w("string-for-number.yaml", sub(GPU, "memory_gib: 24", "memory_gib: twenty-four"))
w("list-for-map.yaml", sub(GPU, "    tflops:\n      fp32: 82.6\n      bf16: 165.2\n", "    tflops: [82.6, 165.2]\n"))
w("map-for-list.yaml", "gpus:\n  id: card\n  name: Card\n")
w("unknown-key-gpu.yaml", sub(GPU, "    ecc: false\n", "    ecc: false\n    colour: green\n"))
w("unknown-key-tflops.yaml", sub(GPU, "      bf16: 165.2\n", "      bf16: 165.2\n      fp4: 400\n"))
w("unknown-key-interconnect.yaml", sub(GPU, "      bandwidth_gbps: 32\n", "      bandwidth_gbps: 32\n      lanes: 16\n"))
w("unknown-key-provider.yaml", sub(PROVIDER, "    source: https", "    website: https://example.com\n    source: https"))
w("unknown-key-offer.yaml", sub(PROVIDER, "        region: any\n", "        region: any\n        on_demand_per_hour: 0.69\n"))
w("unknown-key-model.yaml", sub(MODEL, "    norm: rmsnorm\n", "    norm: rmsnorm\n    rope_theta: 500000\n"))
w("unknown-key-fx.yaml", "fx:\n  as_of: 2026-02-05\n  base: USD\n  rate:\n    INR: 90.3957\n")
w("unknown-key-top.yaml", GPU + "gpu_list:\n  - id: other\n")
w("duplicate-gpu-id.yaml", GPU + GPU[len("gpus:\n"):])
w("duplicate-offer-id.yaml", PROVIDER + "      - {id: x1, gpu: rtx-4090, gpus: 1, region: eu, on_demand_per_gpu_hour: 0.79}\n")
w("duplicate-model-id.yaml", MODEL + MODEL[len("models:\n"):])
w("duplicate-key.yaml", sub(GPU, "    memory_gib: 24\n", "    memory_gib: 24\n    memory_gib: 48\n"))
w("unknown-gpu-in-offer.yaml", sub(PROVIDER, "gpu: rtx-4090", "gpu: rtx-4099"))
w("negative-price.yaml", sub(PROVIDER, "on_demand_per_gpu_hour: 0.69", "on_demand_per_gpu_hour: -0.69"))
w("zero-price.yaml", sub(PROVIDER, "on_demand_per_gpu_hour: 0.69", "on_demand_per_gpu_hour: 0"))
w("negative-memory.yaml", sub(GPU, "memory_gib: 24", "memory_gib: -24"))
w("zero-memory.yaml", sub(GPU, "memory_gib: 24", "memory_gib: 0"))
w("nan-value.yaml", sub(GPU, "memory_bandwidth_gbps: 1008", "memory_bandwidth_gbps: .nan"))
w("inf-value.yaml", sub(GPU, "      fp32: 82.6", "      fp32: .inf"))
w("hex-number.yaml", sub(GPU, "tdp_watts: 450", "tdp_watts: 0x1c2"))
w("no-offers.yaml", sub(PROVIDER, PROVIDER[PROVIDER.index("    offers:"):], "    offers: []\n"))
w("missing-offers.yaml", PROVIDER[: PROVIDER.index("    offers:")])
w("offer-no-price.yaml", PROVIDER.replace("        on_demand_per_gpu_hour: 0.69\n", ""))
w("bad-currency.yaml", sub(PROVIDER, "currency: USD", "currency: DOLLARS"))
w("bad-date.yaml", sub(PROVIDER, "prices_as_of: 2026-01-15", "prices_as_of: 2026-13-45"))
w("bad-date-format.yaml", sub(PROVIDER, "prices_as_of: 2026-01-15", "prices_as_of: 15/01/2026"))
w("bad-date-feb30.yaml", sub(PROVIDER, "prices_as_of: 2026-01-15", "prices_as_of: 2026-02-30"))
w("kv-heads-not-dividing.yaml", sub(MODEL, "kv_heads: 8", "kv_heads: 5"))
w("moe-missing-experts-per-token.yaml", sub(MODEL, "    max_context:", "    experts: 8\n    max_context:"))
w("bad-id.yaml", sub(GPU, "id: card", "id: My_Card"))
w("missing-required.yaml", GPU.replace("    tdp_watts: 450\n", ""))
w("empty.yaml", "")
w("only-comment.yaml", "# nothing here\n")
w("binary-garbage.yaml", bytes(range(256)) * 2)
w("deep-flow.yaml", "gpus: " + "[" * 5000 + "\n")
w("deep-flow-map.yaml", "gpus: " + "{a: " * 5000 + "\n")
w("tab-indent.yaml", sub(GPU, "    name: Card", "\tname: Card"))
w("scalar-top.yaml", "just a string\n")

# --- SkyPilot vms.csv price sheets (--catalog FILE.csv) ---------------------
SKY_HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\n"
SKY_ROW = "gpu_8x_h100_sxm5,H100,8.0,208.0,1800.0,31.92,us-east-1,\"{'Gpus': [{'Name': 'H100', 'Count': 8.0}]}\",\r\n"
w("csv-unterminated-quote.csv", SKY_HEADER + SKY_ROW + SKY_ROW[: SKY_ROW.index("{'Gpus'") + 9])
w("csv-wrong-field-count.csv", SKY_HEADER + SKY_ROW + "gpu_1x_a100,A100,1.0,30.0,200.0,1.99,us-east-1\r\n")
w("csv-missing-price-column.csv", SKY_HEADER.replace("Price,Region", "Cost,Region") + SKY_ROW)
w("csv-nan-price.csv", SKY_HEADER + sub(SKY_ROW, "31.92", "nan"))
w("csv-zero-count.csv", SKY_HEADER + sub(SKY_ROW, "H100,8.0", "H100,0"))
w("csv-binary-garbage.csv", bytes(range(256)) * 2)

# --- Hugging Face config.json ---------------------------------------------
CFG = {"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096,
       "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,
       "vocab_size": 128256, "max_position_embeddings": 131072}
def cfg(name, **changes):
    d = dict(CFG)
    for k, v in changes.items():
        if v is None:
            d.pop(k)
        else:
            d[k] = v
    w(name, json.dumps(d, indent=2) + "\n")
cfg("config-missing-hidden-size.json", hidden_size=None)
cfg("config-unsupported-type.json", model_type="bert")
cfg("config-string-number.json", num_hidden_layers="32")
cfg("config-negative.json", vocab_size=-1)
cfg("config-kv-not-dividing.json", num_key_value_heads=5)
w("config-invalid.json", json.dumps(CFG, indent=2)[:-3] + ",\n}\n")
w("config-empty.json", "")
w("config-array.json", "[1, 2, 3]\n")

# --- safetensors ----------------------------------------------------------
def st(header):
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h
good = {"w": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 8]}}
w("st-header-too-long.safetensors", struct.pack("<Q", 1 << 20) + b'{"w":')
w("st-lying-offsets.safetensors",
  st({"w": {"dtype": "F16", "shape": [2, 2], "data_offsets": [0, 4096]}}) + b"\0" * 8)
w("st-shape-mismatch.safetensors",
  st({"w": {"dtype": "F16", "shape": [4, 4], "data_offsets": [0, 8]}}) + b"\0" * 8)
w("st-3-bytes.safetensors", b"\x01\x02\x03")
w("st-bad-json.safetensors", struct.pack("<Q", 10) + b"{not json}")
w("st-huge-header.safetensors", struct.pack("<Q", 200 * 1000 * 1000) + b"{}")
w("st-empty.safetensors", b"")

# --- round two (issue 16): what the first corpus did not reach ----------------------------
# 16.1: a 50,000-character id overflowed std::regex's recursion.
w("long-id.yaml", sub(GPU, "id: card", "id: " + "a" * 50000 + "_"))
# 16.9: a second document was silently dropped.
w("second-document.yaml", GPU + "---\n" + MODEL)
# 16.7: every number has a physical floor; 1e-300 made totals infinite.
w("tiny-bandwidth.yaml", sub(GPU, "memory_bandwidth_gbps: 1008", "memory_bandwidth_gbps: 1e-300"))
w("tiny-tflops.yaml", sub(GPU, "      bf16: 165.2", "      bf16: 1e-300"))
w("tiny-interconnect.yaml", sub(GPU, "      bandwidth_gbps: 32", "      bandwidth_gbps: 1e-300"))
w("tiny-price.yaml", sub(PROVIDER, "on_demand_per_gpu_hour: 0.69", "on_demand_per_gpu_hour: 1e-300"))
w("tiny-network.yaml", sub(PROVIDER, "        region: any\n", "        region: any\n        network_gbps: 1e-300\n"))
w("tiny-fx.yaml", "fx:\n  as_of: 2026-02-05\n  base: USD\n  rates:\n    INR: 1e-300\n")
w("usable-above-memory.yaml", sub(GPU, "    memory_gib: 24\n", "    memory_gib: 24\n    usable_memory_gib: 25\n"))
# 16.5: heads x head_dim overflowed int ("trainable parameters: -274.88B").
w("heads-overflow.yaml", sub(sub(sub(MODEL, "attention_heads: 32", "attention_heads: 65536"), "kv_heads: 8", "kv_heads: 65536"),
                             "head_dim: 128", "head_dim: 32768"))
cfg("config-heads-overflow.json", num_attention_heads=65536, num_key_value_heads=65536, head_dim=32768)
# 16.9: repeated keys in config.json took the last value.
w("config-duplicate-key.json", json.dumps(CFG, indent=2)[:-2] + ',\n  "hidden_size": 8192\n}\n')
# 16.16 and 16.20: invalid UTF-8 and NUL bytes, named with their line.
w("invalid-utf8.yaml", sub(GPU, "name: Card", "name: Card").encode().replace(b"name: Card", b"name: Ca\xffrd"))
w("nul-byte.yaml", GPU.encode().replace(b"name: Card", b"name: Ca\x00rd"))
w("config-invalid-utf8.json", (json.dumps(CFG, indent=2) + "\n").encode().replace(b'"llama"', b'"lla\xc3\x28ma"'))
w("config-nul.json", (json.dumps(CFG, indent=2) + "\n").encode().replace(b'"llama"', b'"lla\x00ma"'))
# 16.17: control characters are escaped and long values cut in messages.
cfg("config-escape-type.json", model_type="\x1b[31mred\x07" + "x" * 5000)
# 16.18: 1,000 aliases of a 1,000-key map gave 1.01M errors.
w("many-errors.yaml", "x: &a {" + ", ".join("k%d: 1" % i for i in range(1000)) + "}\ngpus:\n"
  + "".join("  - *a\n" for _ in range(1000)))
# 16.6: overlapping data_offsets; many tensors on one byte range counted many times.
w("st-overlap.safetensors", st({"a": {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]},
                                "b": {"dtype": "F16", "shape": [4], "data_offsets": [4, 12]}}) + b"\0" * 12)
w("st-shared-range.safetensors", st({"t%d" % i: {"dtype": "F16", "shape": [4], "data_offsets": [0, 8]}
                                     for i in range(1000)}) + b"\0" * 8)
# 16.9: repeated keys in a safetensors header (raw text: json.dumps cannot repeat a key).
def st_raw(text):
    return struct.pack("<Q", len(text)) + text.encode()
w("st-duplicate-name.safetensors", st_raw('{"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},'
                                          '"w":{"dtype":"F16","shape":[2],"data_offsets":[4,8]}}') + b"\0" * 8)
w("st-duplicate-field.safetensors", st_raw('{"w":{"dtype":"F16","shape":[2],"shape":[4],"data_offsets":[0,4]}}') + b"\0" * 4)
w("st-metadata-object.safetensors", st_raw('{"__metadata__":{"a":{"b":1}},"w":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}') + b"\0" * 4)
# 16.2: an index naming itself, two naming each other: unbounded recursion.
w("st-index-self.index.json", json.dumps({"weight_map": {"w": "st-index-self.index.json"}}) + "\n")
w("st-index-a.index.json", json.dumps({"weight_map": {"w": "st-index-b.index.json"}}) + "\n")
w("st-index-b.index.json", json.dumps({"weight_map": {"w": "st-index-a.index.json"}}) + "\n")
# advise --answers: a value that is not an answer, an unknown question, a list, not YAML.
w("answers-bad-share.yaml", "steady_share: 30%\ninterruptible: most of it\n")
w("answers-unknown-key.yaml", "steady_share: 30%\ninteruptible: 60%\n")
w("answers-list.yaml", "ops:\n  - slurm\n  - kubernetes\n")
w("answers-churn.yaml", "churn: 0mo\n")
w("answers-not-yaml.yaml", "steady_share: [30%\n")
