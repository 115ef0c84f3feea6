//===- Arguments.cpp - fa4-run's command line -----------------------------===//
//
// A small table-driven parser: the options fa4-run knows, whether each takes
// a value and which problem it belongs to; then strict conversion of the
// values (decimal integers in range, a positive finite scale) and the rules
// that tie options together (required sizes, --iters only with --bench).
// The plan fields with options of their own are one table of shorthands.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string_view>
#include <vector>

using namespace fa4::run;
namespace runner = fa4::runner;
using fa4::runtime::Expected;
using fa4::runtime::Status;

namespace {
/// Which problem an option belongs to: any, a preset, or a kernel run from
/// its description.
enum class Scope { Any, Gemm, Attention, Preset, Described };

/// One option of the command line.
struct OptionSpec {
  std::string_view name;
  bool takesValue;
  Scope scope;
};
} // namespace

static constexpr OptionSpec kOptions[] = {
    {"kernel", true, Scope::Any},
    {"problem", true, Scope::Any},
    {"m", true, Scope::Gemm},
    {"n", true, Scope::Gemm},
    // The gemm size K, or the attention input file of K.
    {"k", true, Scope::Preset},
    {"batch", true, Scope::Attention},
    {"heads", true, Scope::Attention},
    {"seq-q", true, Scope::Attention},
    {"seq-k", true, Scope::Attention},
    {"head-dim", true, Scope::Attention},
    {"head-dim-v", true, Scope::Attention},
    {"causal", false, Scope::Attention},
    {"kv-heads", true, Scope::Attention},
    {"layout", true, Scope::Attention},
    {"window", true, Scope::Attention},
    {"softcap", true, Scope::Attention},
    {"seqlens", true, Scope::Attention},
    {"seqlens-k", true, Scope::Attention},
    {"cu-seqlens-q", true, Scope::Attention},
    {"cu-seqlens-k", true, Scope::Attention},
    {"scale", true, Scope::Attention},
    {"q", true, Scope::Attention},
    {"v", true, Scope::Attention},
    {"out", true, Scope::Attention},
    {"lse", true, Scope::Attention},
    {"backward", false, Scope::Attention},
    {"fused-dq", false, Scope::Attention},
    {"deterministic", false, Scope::Attention},
    {"decode", false, Scope::Attention},
    {"page-size", true, Scope::Attention},
    {"cache-seqlens", true, Scope::Attention},
    {"splits", true, Scope::Attention},
    {"dtype", true, Scope::Any},
    {"plan", true, Scope::Any},
    {"no-cache", false, Scope::Any},
    {"ctas", true, Scope::Any},
    {"emit", true, Scope::Any},
    {"check", false, Scope::Any},
    {"no-check", false, Scope::Any},
    {"bench", false, Scope::Any},
    {"warmup", true, Scope::Any},
    {"iters", true, Scope::Any},
    {"seed", true, Scope::Any},
    {"driver-library", true, Scope::Any},
    {"dump-dir", true, Scope::Any},
    {"arg", true, Scope::Described},
    {"save", true, Scope::Described},
    {"describe", false, Scope::Described},
    {"help", false, Scope::Any},
};

namespace {
/// A plan field (Plan::fields()) with an option of its own: `--NAME N` for
/// an integer field, a decimal in [min, max] and a multiple of `multiple`;
/// `--NAME` for a boolean one, and `--OFF` for false where it has one.
/// Every field, these too, is also `--plan NAME=VALUE`.
struct PlanShorthand {
  const char *field;
  Scope scope;
  const char *off = nullptr;
  uint64_t min = 1;
  uint64_t max = 16;
  uint64_t multiple = 1;
  /// Text after "is not a multiple of N", e.g. " (the MMA step)".
  const char *why = "";
};
} // namespace

/// The one list of the shorthands: the option table, the refusal with
/// --kernel and the parsing read it (their help is in Help.cpp).
static constexpr PlanShorthand kPlanShorthands[] = {
    {"kv-stages", Scope::Any},
    {"qk-stages", Scope::Any},
    {"block-n", Scope::Attention, nullptr, 16, 256, 16, " (the MMA step)"},
    {"consumer-warpgroups", Scope::Attention, nullptr, 1, 3},
    {"persistent", Scope::Any, "no-persistent"},
    {"q-stages", Scope::Any, nullptr, 1, 2},
    {"debug-hangs", Scope::Any},
    {"rebuild-descriptors", Scope::Any, "no-rebuild-descriptors"},
    {"pin-descriptors", Scope::Any, "no-pin-descriptors"},
    {"interleave-heads", Scope::Any, "no-interleave-heads"},
    {"dynamic-schedule", Scope::Any, "static-schedule"},
};

/// The plan field `shorthand` sets. A name that is no field is a bug of
/// the table, which every run of fa4-run (and so every lit test of it)
/// meets when it collects its options.
static const fa4::Plan::Field &planField(const PlanShorthand &shorthand) {
  for (const fa4::Plan::Field &field : fa4::Plan::fields())
    if (std::string_view(field.name) == shorthand.field)
      return field;
  std::fprintf(stderr, "fa4-run: internal error: --%s names no plan field\n",
               shorthand.field);
  std::abort();
}

/// Every option: the table above and the plan fields' shorthands.
static const std::vector<OptionSpec> &allOptions() {
  static const std::vector<OptionSpec> options = [] {
    std::vector<OptionSpec> all(std::begin(kOptions), std::end(kOptions));
    for (const PlanShorthand &shorthand : kPlanShorthands) {
      all.push_back({shorthand.field, planField(shorthand).integer != nullptr,
                     shorthand.scope});
      if (shorthand.off)
        all.push_back({shorthand.off, false, shorthand.scope});
    }
    return all;
  }();
  return options;
}

/// The options that may be given more than once, each adding a value.
static bool isRepeatable(std::string_view name) {
  return name == "arg" || name == "save";
}

/// The largest problem size an option takes: 2^31 - 1 keeps every product of
/// two sizes far from overflowing 64 bits before the problem checks run.
static constexpr uint64_t kMaxSize = (uint64_t(1) << 31) - 1;

/// The options given, by name; flags map to an empty value.
using Given = std::map<std::string, std::string, std::less<>>;

/// Collects the options of `argv` into `given`, each at most once, and the
/// values of the repeatable ones into `repeated`, in order.
static Status collect(int argc, const char *const *argv, Given &given,
                      std::vector<std::pair<std::string, std::string>> &repeated) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, 2) != "--" || arg.size() == 2)
      return Status::error("unexpected argument '" + std::string(arg) +
                           "'; options start with --");
    arg.remove_prefix(2);
    size_t eq = arg.find('=');
    std::string name(arg.substr(0, eq));
    const OptionSpec *spec = nullptr;
    for (const OptionSpec &option : allOptions())
      if (option.name == name)
        spec = &option;
    if (!spec)
      return Status::error("unknown option '--" + name + "'");
    std::string value;
    if (eq != std::string_view::npos) {
      if (!spec->takesValue)
        return Status::error("--" + name + " takes no value");
      value = arg.substr(eq + 1);
    } else if (spec->takesValue) {
      if (i + 1 >= argc || std::string_view(argv[i + 1]).substr(0, 2) == "--")
        return Status::error("--" + name + " needs a value");
      value = argv[++i];
    }
    if (spec->takesValue && value.empty())
      return Status::error("--" + name + " needs a value");
    if (isRepeatable(name)) {
      repeated.push_back({name, value});
      given[name] = value;
      continue;
    }
    if (!given.emplace(name, value).second)
      return Status::error("--" + name + " is given twice");
  }
  return Status::success();
}

/// The decimal integer of option `name` in [min, max].
static Expected<uint64_t> integer(const Given &given, const char *name,
                                  uint64_t min, uint64_t max) {
  const std::string &text = given.find(name)->second;
  uint64_t value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    return Status::error(
        "--" + std::string(name) + " = '" + text +
        "' is not a non-negative decimal integer" +
        (ec == std::errc::result_out_of_range ? " that fits in 64 bits" : ""));
  if (value < min || value > max)
    return Status::error("--" + std::string(name) + " = " + text +
                         " is outside [" + std::to_string(min) + ", " +
                         std::to_string(max) + "]");
  return value;
}

/// Sets `target` to the size option `name`, which the problem requires; with
/// --emit, which only compiles, a missing size keeps `target` as it is.
static Status size(const Given &given, const char *name, const char *problem,
                   uint64_t &target) {
  if (!given.count(name) && given.count("emit"))
    return Status::success();
  if (!given.count(name))
    return Status::error("--problem " + std::string(problem) + " needs --" +
                         name);
  Expected<uint64_t> value = integer(given, name, 1, kMaxSize);
  if (!value.ok())
    return value.status();
  target = *value;
  return Status::success();
}

/// The softmax scale of --scale: a positive finite number.
static Expected<double> scale(const std::string &text) {
  errno = 0;
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno != 0 ||
      !std::isfinite(value) || !(value > 0))
    return Status::error("--scale = '" + text +
                         "' is not a positive finite number");
  return value;
}

/// Fails when an option of another problem is given.
static Status checkScope(const Given &given, Scope problem,
                         const std::string &problemName) {
  for (const OptionSpec &option : allOptions()) {
    bool applies = option.scope == Scope::Any || option.scope == problem ||
                   (option.scope == Scope::Preset && problem != Scope::Described);
    if (applies || !given.count(option.name))
      continue;
    if (problem == Scope::Described)
      return Status::error("--" + std::string(option.name) +
                           " belongs to --problem gemm or attention; a kernel "
                           "run by its description takes its tensors and "
                           "scalars with --arg");
    if (option.scope == Scope::Described)
      return Status::error("--" + std::string(option.name) +
                           " is for a kernel run by its description "
                           "(--kernel FILE without --problem)");
    return Status::error("--" + std::string(option.name) +
                         " does not apply to --problem " + problemName);
  }
  return Status::success();
}

static Status readGemm(const Given &given, Arguments &args) {
  // The sizes --emit assumes when they are not given: any fit the kernel.
  args.gemm.m = 128;
  args.gemm.n = 128;
  args.gemm.k = 64;
  for (auto [name, target] :
       {std::pair{"m", &args.gemm.m}, {"n", &args.gemm.n}, {"k", &args.gemm.k}})
    if (Status s = size(given, name, "gemm", *target); !s.ok())
      return s;
  return Status::success();
}

/// The lengths of option `name`: a comma-separated list of decimal
/// integers, each in [0, 2^31 - 1] (an empty sequence is 0).
static Expected<std::vector<uint64_t>> lengths(const Given &given,
                                               const char *name) {
  const std::string &text = given.find(name)->second;
  std::vector<uint64_t> values;
  size_t start = 0;
  while (true) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma - start);
    uint64_t value = 0;
    auto [end, ec] =
        std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() ||
        value > kMaxSize)
      return Status::error("--" + std::string(name) + " = '" + text +
                           "': '" + part +
                           "' is not a sequence length (a decimal integer in "
                           "[0, " + std::to_string(kMaxSize) + "]); give e.g. "
                           "100,2000,37");
    values.push_back(value);
    if (comma == std::string::npos)
      return values;
    start = comma + 1;
  }
}

/// Packed sequences: --seqlens (and --seqlens-k) or --cu-seqlens-q (and
/// -k); the lengths fix the batch and the sequence lengths.
static Status readSequences(const Given &given, Arguments &args) {
  bool listed = given.count("seqlens"), offsets = given.count("cu-seqlens-q");
  if (!listed && !offsets) {
    for (const char *name : {"seqlens-k", "cu-seqlens-k"})
      if (given.count(name))
        return Status::error("--" + std::string(name) + " needs --" +
                             (name[0] == 's' ? "seqlens" : "cu-seqlens-q"));
    return Status::success();
  }
  if (listed && offsets)
    return Status::error("--seqlens and --cu-seqlens-q both give the "
                         "sequence lengths; give one");
  for (const char *name :
       {"batch", "seq-q", "seq-k", "layout", listed ? "cu-seqlens-k"
                                                    : "seqlens-k"})
    if (given.count(name))
      return Status::error(
          "--" + std::string(name) + " does not go with packed sequences (" +
          (listed ? "--seqlens" : "--cu-seqlens-q") +
          (std::string_view(name) == "layout"
               ? "), which lie as (T, H, D)"
               : "), whose lengths fix the batch and the sequence lengths"));
  if (offsets) {
    args.cuSeqlensQFile = given.find("cu-seqlens-q")->second;
    auto k = given.find("cu-seqlens-k");
    args.cuSeqlensKFile =
        k != given.end() ? k->second : args.cuSeqlensQFile;
    return Status::success();
  }
  Expected<std::vector<uint64_t>> q = lengths(given, "seqlens");
  if (!q.ok())
    return q.status();
  std::vector<uint64_t> k = *q;
  if (given.count("seqlens-k")) {
    Expected<std::vector<uint64_t>> keys = lengths(given, "seqlens-k");
    if (!keys.ok())
      return keys.status();
    k = keys.take();
  }
  if (Status s = runner::setSequenceLengths(args.attention, q.take(),
                                            std::move(k));
      !s.ok())
    return Status::error("--seqlens-k: " + s.message());
  return Status::success();
}

static Status readAttention(const Given &given, Arguments &args) {
  runner::AttentionProblem &p = args.attention;
  if (Status s = readSequences(given, args); !s.ok())
    return s;
  unsigned files = given.count("q") + given.count("k") + given.count("v");
  if (files != 0 && files != 3)
    return Status::error("--q, --k and --v go together: give all three input "
                         "files or none");
  if (files) {
    args.qFile = given.find("q")->second;
    args.kFile = given.find("k")->second;
    args.vFile = given.find("v")->second;
  }
  if (auto it = given.find("out"); it != given.end())
    args.outFile = it->second;
  if (auto it = given.find("lse"); it != given.end())
    args.lseFile = it->second;
  // The sizes --emit assumes when they are not given; only the head dim
  // picks the kernel.
  if (given.count("emit") && !files) {
    p.heads = 1;
    p.headDim = 128;
    if (!args.varlen()) {
      p.batch = 1;
      p.seqQ = p.seqK = 128;
    }
  }
  for (auto [name, target] : {std::pair{"batch", &p.batch},
                              {"heads", &p.heads},
                              {"seq-q", &p.seqQ},
                              {"seq-k", &p.seqK},
                              {"head-dim", &p.headDim}}) {
    // With input files the sizes are optional: the files fix them; packed
    // sequences have their batch and lengths.
    if (files && !given.count(name))
      continue;
    if (args.varlen() && std::string_view(name) != "heads" &&
        std::string_view(name) != "head-dim")
      continue;
    if (Status s = size(given, name, "attention", *target); !s.ok())
      return s;
  }
  // V's head dim: D unless given, or with --v the file's, which a value
  // given must agree with.
  if (given.count("head-dim-v")) {
    Expected<uint64_t> value = integer(given, "head-dim-v", 1, kMaxSize);
    if (!value.ok())
      return value.status();
    p.headDimV = *value;
  }
  p.causal = given.count("causal");
  if (given.count("kv-heads")) {
    Expected<uint64_t> value = integer(given, "kv-heads", 1, kMaxSize);
    if (!value.ok())
      return value.status();
    p.kvHeads = *value;
  }
  if (auto it = given.find("window"); it != given.end()) {
    // L,R: two integers, each -1 (no bound) or a key count.
    const std::string &text = it->second;
    size_t comma = text.find(',');
    int64_t sides[2] = {0, 0};
    bool ok = comma != std::string::npos;
    for (int i = 0; ok && i < 2; ++i) {
      std::string part = i == 0 ? text.substr(0, comma) : text.substr(comma + 1);
      auto [end, ec] =
          std::from_chars(part.data(), part.data() + part.size(), sides[i]);
      ok = !part.empty() && ec == std::errc() &&
           end == part.data() + part.size() && sides[i] >= -1 &&
           sides[i] <= int64_t(kMaxSize);
    }
    if (!ok)
      return Status::error("--window = '" + text +
                           "' is not L,R: two key counts, -1 for no bound "
                           "(e.g. 128,0)");
    p.windowLeft = sides[0];
    p.windowRight = sides[1];
  }
  if (auto it = given.find("softcap"); it != given.end()) {
    errno = 0;
    char *end = nullptr;
    double value = std::strtod(it->second.c_str(), &end);
    if (end != it->second.c_str() + it->second.size() || errno != 0 ||
        !std::isfinite(value) || !(value > 0))
      return Status::error("--softcap = '" + it->second +
                           "' is not a positive finite number");
    p.softcap = value;
  }
  if (auto it = given.find("layout"); it != given.end()) {
    if (it->second != "bhsd" && it->second != "bshd")
      return Status::error("--layout = '" + it->second +
                           "' is not bhsd or bshd");
    p.layout = it->second == "bshd" ? runner::AttentionLayout::BSHD
                                    : runner::AttentionLayout::BHSD;
  }
  p.scale = files ? 0 : 1.0 / std::sqrt(double(p.headDim));
  if (auto it = given.find("scale"); it != given.end()) {
    Expected<double> value = scale(it->second);
    if (!value.ok())
      return value.status();
    p.scale = *value;
  }
  return Status::success();
}

/// Reads the options that apply to every problem.
static Status readRunOptions(const Given &given, Arguments &args) {
  runner::RunOptions &options = args.options;
  if (given.count("check") && given.count("no-check"))
    return Status::error("--check and --no-check contradict each other");
  options.check = !given.count("no-check");
  options.bench = given.count("bench");
  for (const char *name : {"warmup", "iters"})
    if (given.count(name) && !options.bench)
      return Status::error("--" + std::string(name) + " needs --bench");
  struct {
    const char *name;
    uint64_t min, max;
    unsigned *target;
  } counts[] = {{"warmup", 0, 100000, &options.warmup},
                {"iters", 1, 100000, &options.iters}};
  for (const auto &count : counts) {
    if (!given.count(count.name))
      continue;
    Expected<uint64_t> value = integer(given, count.name, count.min, count.max);
    if (!value.ok())
      return value.status();
    *count.target = unsigned(*value);
  }
  if (given.count("ctas")) {
    Expected<uint64_t> ctas = integer(given, "ctas", 1, kMaxSize);
    if (!ctas.ok())
      return ctas.status();
    options.ctas = *ctas;
  }
  if (given.count("seed")) {
    Expected<uint64_t> seed = integer(given, "seed", 0, UINT64_MAX);
    if (!seed.ok())
      return seed.status();
    options.seed = *seed;
  }
  if (auto it = given.find("driver-library"); it != given.end())
    args.driverLibrary = it->second;
  if (auto it = given.find("dtype"); it != given.end()) {
    if (it->second != "bf16" && it->second != "f16")
      return Status::error("--dtype = '" + it->second + "' is not bf16 or f16");
    args.dtype = *fa4::runtime::parseElementType(it->second);
    // The problem's element type: fa4's own kernels are compiled for it
    // (--backward and --decode run them on it); a kernel file's must agree.
    args.attention.elementType = args.gemm.elementType = *args.dtype;
  }
  // The plan choices shape fa4's own kernel; a kernel file has its plan.
  if (!args.kernelPath.empty()) {
    auto refuse = [](const char *name) {
      return Status::error("--" + std::string(name) +
                           " chooses the plan of fa4's own kernel; it does "
                           "not apply with --kernel");
    };
    if (given.count("plan"))
      return refuse("plan");
    for (const PlanShorthand &shorthand : kPlanShorthands)
      for (const char *name : {shorthand.field, shorthand.off})
        if (name && given.count(name))
          return refuse(name);
  }
  if (!args.kernelPath.empty() && given.count("no-cache"))
    return Status::error("--no-cache keeps fa4's own kernel out of the compile "
                         "cache; it does not apply with --kernel");
  for (const PlanShorthand &shorthand : kPlanShorthands) {
    const char *name = shorthand.field;
    std::string value;
    if (planField(shorthand).integer) {
      if (!given.count(name))
        continue;
      Expected<uint64_t> number =
          integer(given, name, shorthand.min, shorthand.max);
      if (!number.ok())
        return number.status();
      if (*number % shorthand.multiple != 0)
        return Status::error(
            "--" + std::string(name) + " = " + std::to_string(*number) +
            " is not a multiple of " + std::to_string(shorthand.multiple) +
            shorthand.why);
      value = std::to_string(*number);
    } else {
      bool on = given.count(name) != 0;
      bool off = shorthand.off && given.count(shorthand.off) != 0;
      if (on && off)
        return Status::error("--" + std::string(name) + " and --" +
                             shorthand.off + " contradict each other");
      if (!on && !off)
        continue;
      value = on ? "true" : "false";
    }
    if (Status s = args.plan.set(name, value); !s.ok())
      return s;
  }
  if (args.plan.qStages.value_or(1) == 2 &&
      !args.plan.persistent.value_or(true))
    return Status::error("--q-stages = 2 needs a persistent kernel: a CTA "
                         "of one tile loads its Q once");
  // Any plan field by its name; the options above are its shorthands.
  if (auto it = given.find("plan"); it != given.end())
    if (Status s = args.plan.parse(it->second); !s.ok())
      return Status::error("--plan = '" + it->second + "': " + s.message());
  if (args.plan.interleaveHeads.value_or(false) &&
      !args.plan.persistent.value_or(true))
    return Status::error("--interleave-heads orders a persistent kernel's "
                         "tiles; it does not apply with --no-persistent");
  if (args.plan.dynamicSchedule.value_or(false) &&
      !args.plan.persistent.value_or(true))
    return Status::error("--dynamic-schedule hands out a persistent kernel's "
                         "tiles; it does not apply with --no-persistent");
  if (args.plan.dynamicSchedule.value_or(false) &&
      args.plan.interleaveHeads.value_or(false))
    return Status::error("--interleave-heads numbers the static schedule's "
                         "tiles; it does not apply with --dynamic-schedule");
  args.noCache = given.count("no-cache");
  if (auto it = given.find("emit"); it != given.end()) {
    if (!args.kernelPath.empty())
      return Status::error("--emit prints a stage of fa4's own kernel; it "
                           "does not apply with --kernel");
    static const char *kStages[] = {"tile", "fa4",    "llvm",
                                    "llvm-ir", "ptx", "ptxas-report"};
    bool known = false;
    for (const char *stage : kStages)
      known |= it->second == stage;
    if (!known)
      return Status::error("--emit = '" + it->second +
                           "' is not tile, fa4, llvm, llvm-ir, ptx or ptxas-report");
    args.emit = it->second;
  }
  return Status::success();
}

Expected<Arguments> fa4::run::parseArguments(int argc,
                                             const char *const *argv) {
  Arguments args;
  // --help wins over everything else, mistakes included.
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--help" ||
        std::string_view(argv[i]) == "-h") {
      args.help = true;
      return args;
    }
  // No arguments: the default problem, compiled, checked and timed.
  if (argc <= 1) {
    args.defaultProblem = true;
    args.problem = ProblemKind::Attention;
    args.attention.batch = 4;
    args.attention.heads = 16;
    args.attention.seqQ = 4096;
    args.attention.seqK = 4096;
    args.attention.headDim = 128;
    args.attention.scale = 1.0 / std::sqrt(128.0);
    args.options.bench = true;
    return args;
  }
  Given given;
  std::vector<std::pair<std::string, std::string>> repeated;
  if (Status s = collect(argc, argv, given, repeated); !s.ok())
    return s;
  if (given.count("kernel"))
    args.kernelPath = given["kernel"];
  if (given.count("dump-dir"))
    args.dumpDir = given["dump-dir"];
  if (!given.count("problem") && given.count("kernel")) {
    // Any kernel, run from its launch description.
    args.problem = ProblemKind::Described;
    if (Status s = checkScope(given, Scope::Described, ""); !s.ok())
      return s;
    for (const auto &[name, value] : repeated) {
      if (name == "arg") {
        Expected<runner::ArgumentSpec> spec = runner::parseArgumentSpec(value);
        if (!spec.ok())
          return spec.status();
        args.kernelArgs.push_back(spec.take());
      } else {
        Expected<runner::SaveSpec> spec = runner::parseSaveSpec(value);
        if (!spec.ok())
          return spec.status();
        args.saves.push_back(spec.take());
      }
    }
    args.describe = given.count("describe");
    if (Status s = readRunOptions(given, args); !s.ok())
      return s;
    return args;
  }
  // Without --problem (and --kernel) the options are the default problem's:
  // attention of its sizes, each of them unless given.
  if (!given.count("problem")) {
    given["problem"] = "attention";
    bool sized = given.count("seqlens") || given.count("cu-seqlens-q") ||
                 given.count("q");
    for (auto [name, value] : {std::pair{"batch", "4"},
                               {"heads", "16"},
                               {"seq-q", "4096"},
                               {"seq-k", "4096"},
                               {"head-dim", "128"}})
      if (!given.count(name) &&
          (!sized || std::string_view(name) == "head-dim" ||
           std::string_view(name) == "heads"))
        given[name] = value;
  }
  const std::string &problem = given["problem"];
  if (problem != "gemm" && problem != "attention")
    return Status::error("--problem = '" + problem +
                         "' is not gemm or attention");
  args.problem = problem == "gemm" ? ProblemKind::Gemm : ProblemKind::Attention;
  Scope scope = problem == "gemm" ? Scope::Gemm : Scope::Attention;
  if (Status s = checkScope(given, scope, problem); !s.ok())
    return s;
  Status read = args.problem == ProblemKind::Gemm ? readGemm(given, args)
                                                  : readAttention(given, args);
  if (!read.ok())
    return read;
  // The backward: fa4's kernels on random inputs, (B, H, S, D), or
  // packed sequences of the lengths --seqlens gives.
  args.backward = given.count("backward");
  if (args.backward) {
    for (const char *name : {"q", "out", "lse", "cu-seqlens-q"})
      if (given.count(name))
        return Status::error("--backward runs random inputs of the sizes "
                             "given (or of --seqlens); --" +
                             std::string(name) +
                             " is not among its options yet");
    if (args.attention.layout != runner::AttentionLayout::BHSD)
      return Status::error("--backward runs the (B, H, S, D) layout");
  }
  args.fusedDq = given.count("fused-dq");
  args.deterministic = given.count("deterministic");
  for (const char *name : {"fused-dq", "deterministic"})
    if (given.count(name) && !args.backward)
      return Status::error("--" + std::string(name) +
                           " chooses the backward's kernels; it needs "
                           "--backward");
  if (args.fusedDq && args.deterministic)
    return Status::error("--fused-dq adds dQ's parts across CTAs in no fixed "
                         "order and --deterministic asks for the same bits "
                         "every run; give one");
  args.decode = given.count("decode");
  if (args.decode && args.backward)
    return Status::error("--decode and --backward are different kernels; "
                         "give one");
  for (const char *name : {"page-size", "cache-seqlens", "splits"})
    if (given.count(name) && !args.decode)
      return Status::error("--" + std::string(name) +
                           " is decode's (--decode): " +
                           (name[0] == 'p'   ? "the pages of a paged KV cache"
                            : name[0] == 'c' ? "the keys in use per sequence"
                                             : "the CTAs a sequence's keys "
                                               "are split over"));
  if (args.decode) {
    // Decode runs random inputs: a KV cache of --seq-k keys a sequence,
    // each using --cache-seqlens of them (default all).
    for (const char *name : {"q", "out", "lse", "seqlens", "cu-seqlens-q"})
      if (given.count(name))
        return Status::error("--decode runs random inputs of the sizes "
                             "given (--seq-k the cache's length); --" +
                             std::string(name) + " is not among its options");
    if (args.attention.layout != runner::AttentionLayout::BHSD)
      return Status::error("--decode runs the (B, H, S, D) layout");
  }
  if (given.count("cache-seqlens")) {
    Expected<std::vector<uint64_t>> used = lengths(given, "cache-seqlens");
    if (!used.ok())
      return used.status();
    if (used->size() != args.attention.batch)
      return Status::error(
          "--cache-seqlens lists " + std::to_string(used->size()) +
          " lengths for a batch of " + std::to_string(args.attention.batch) +
          "; give one a sequence");
    for (uint64_t length : *used)
      if (length > args.attention.seqK)
        return Status::error("--cache-seqlens: " + std::to_string(length) +
                             " keys in use in a cache of --seq-k " +
                             std::to_string(args.attention.seqK));
    args.cacheSeqlens.assign(used->begin(), used->end());
  }
  if (given.count("splits")) {
    Expected<uint64_t> splits =
        integer(given, "splits", 1, uint64_t(KernelKey::kDecodeMaxSplits));
    if (!splits.ok())
      return splits.status();
    args.splits = int64_t(*splits);
  }
  if (given.count("page-size")) {
    Expected<uint64_t> page = integer(given, "page-size", 16, 1 << 20);
    if (!page.ok())
      return page.status();
    if (*page % 16)
      return Status::error("--page-size = " + std::to_string(*page) +
                           " is not a multiple of 16 (a key block is gathered "
                           "from its pages in runs of 16 keys or more)");
    args.pageSize = int64_t(*page);
  }
  if (Status s = readRunOptions(given, args); !s.ok())
    return s;
  return args;
}
