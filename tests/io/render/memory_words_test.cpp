// estimate's ways to fit come from the core as codes and numbers; the flags and the reason are
// spelled here.
#include <catch2/catch.hpp>

#include "io/render/memory_words.hpp"

using namespace gpuplan;
using gpuplan::io::fix_flags;
using gpuplan::io::fix_text;

namespace {

MemoryAdvice fix(MemoryFix f) {
  MemoryAdvice a;
  a.fix = f;
  return a;
}

}  // namespace

TEST_CASE("each way to fit as flags and one line of why", "[render][estimate]") {
  CHECK(fix_flags(fix(MemoryFix::int4_weights)) == "--quant int4-awq");
  CHECK(fix_text(fix(MemoryFix::int4_weights)) == "4-bit weights take about a quarter of 16-bit ones");
  CHECK(fix_flags(fix(MemoryFix::fp8_kv_cache)) == "--kv-cache-dtype fp8");
  CHECK(fix_text(fix(MemoryFix::fp8_kv_cache)) == "halves the KV cache");
  CHECK(fix_flags(fix(MemoryFix::serve_one)) == "--batch 1");
  CHECK(fix_text(fix(MemoryFix::serve_one)) == "one sequence at a time");
  CHECK(fix_flags(fix(MemoryFix::checkpointing)) == "--checkpointing full");
  CHECK(fix_text(fix(MemoryFix::checkpointing)) == "keep only each layer's input; costs about one extra forward pass");
  CHECK(fix_flags(fix(MemoryFix::lora)) == "--method lora");
  CHECK(fix_text(fix(MemoryFix::lora)) == "train low-rank adapters; the base model stays frozen in 16-bit");
  CHECK(fix_flags(fix(MemoryFix::qlora)) == "--method qlora");
  CHECK(fix_text(fix(MemoryFix::qlora)) == "4-bit NF4 base weights plus LoRA adapters");
  CHECK(fix_flags(fix(MemoryFix::adamw_8bit)) == "--optimizer adamw-8bit");
  CHECK(fix_text(fix(MemoryFix::adamw_8bit)) == "Adam states at 1 byte each instead of 4");
  MemoryAdvice shard = fix(MemoryFix::shard_zero3);
  shard.gpus = 8;
  CHECK(fix_flags(shard) == "--gpus 8 --sharding zero3");
  CHECK(fix_text(shard) == "shard weights, gradients and optimizer states");
  MemoryAdvice accumulate = fix(MemoryFix::accumulate);
  accumulate.grad_accum = 4;
  CHECK(fix_flags(accumulate) == "--micro-batch 1 --grad-accum 4");
  CHECK(fix_text(accumulate) == "same global batch through gradient accumulation");
  MemoryAdvice shorter = fix(MemoryFix::shorter_sequence);
  shorter.seq_len = 3072;
  CHECK(fix_flags(shorter) == "--seq-len 3072");
  CHECK(fix_text(shorter) == "the longest sequence that fits at this micro-batch");
}

TEST_CASE("a change on top of checkpointing says so in flags and words", "[render][estimate]") {
  MemoryAdvice a = fix(MemoryFix::lora);
  a.with_checkpointing = true;
  CHECK(fix_flags(a) == "--checkpointing full --method lora");
  CHECK(fix_text(a) == "with checkpointing: train low-rank adapters; the base model stays frozen in 16-bit");
}
