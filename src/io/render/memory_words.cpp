#include "io/render/memory_words.hpp"

namespace gpuplan::io {
namespace {

std::string single_flags(const MemoryAdvice& a) {
  switch (a.fix) {
    case MemoryFix::int4_weights: return "--quant int4-awq";
    case MemoryFix::fp8_kv_cache: return "--kv-cache-dtype fp8";
    case MemoryFix::serve_one: return "--batch 1";
    case MemoryFix::checkpointing: return "--checkpointing full";
    case MemoryFix::lora: return "--method lora";
    case MemoryFix::qlora: return "--method qlora";
    case MemoryFix::adamw_8bit: return "--optimizer adamw-8bit";
    case MemoryFix::shard_zero3: return "--gpus " + std::to_string(a.gpus) + " --sharding zero3";
    case MemoryFix::accumulate: return "--micro-batch 1 --grad-accum " + std::to_string(a.grad_accum);
    case MemoryFix::shorter_sequence: return "--seq-len " + std::to_string(a.seq_len);
  }
  return "";
}

std::string single_text(MemoryFix f) {
  switch (f) {
    case MemoryFix::int4_weights: return "4-bit weights take about a quarter of 16-bit ones";
    case MemoryFix::fp8_kv_cache: return "halves the KV cache";
    case MemoryFix::serve_one: return "one sequence at a time";
    case MemoryFix::checkpointing: return "keep only each layer's input; costs about one extra forward pass";
    case MemoryFix::lora: return "train low-rank adapters; the base model stays frozen in 16-bit";
    case MemoryFix::qlora: return "4-bit NF4 base weights plus LoRA adapters";
    case MemoryFix::adamw_8bit: return "Adam states at 1 byte each instead of 4";
    case MemoryFix::shard_zero3: return "shard weights, gradients and optimizer states";
    case MemoryFix::accumulate: return "same global batch through gradient accumulation";
    case MemoryFix::shorter_sequence: return "the longest sequence that fits at this micro-batch";
  }
  return "";
}

}  // namespace

std::string fix_flags(const MemoryAdvice& a) { return (a.with_checkpointing ? "--checkpointing full " : "") + single_flags(a); }

std::string fix_text(const MemoryAdvice& a) { return (a.with_checkpointing ? "with checkpointing: " : "") + single_text(a.fix); }

}  // namespace gpuplan::io
