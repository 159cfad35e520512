//! Search at ripgrep's pace (issue 14): the built-in `grep_search` and `glob` over a large
//! generated tree, side by side with `rg` (`/usr/bin/rg`, or `AIRLOCK_BENCH_RG`) for the same
//! query and the same ignore rules, in one run.
//!
//! The tree (about 50,000 files and 500 MB, a `.gitignore` at the root and one in each
//! crate, a `.git` folder so rg applies them too) is generated once, deterministically, under
//! `target/tmp/bench-search/` and reused while its version stamp matches.
//!
//! The tools run the way the scheduler runs an approved call's execute step: a fresh
//! instance through `airlock_engine::runtime` (instantiate + execute + drop), the workspace
//! preopened read-only, on a multi-thread tokio runtime. That isolates the tool's own cost
//! from model round trips and start-up (measured by the `run` and `startup` benchmarks).
//!
//! What is compared, for each query:
//! - `grep_search` counts every matching line of every searched file and returns the first
//!   100; `rg --count` does the same work (every matching line counted, nothing printed per
//!   line), with `--hidden --glob '!.git'` (the tool shows hidden files but never enters
//!   `.git`) and `--max-filesize 8M` (the tool skips larger files).
//! - `glob` lists every matching file (and reads each one's modification time to sort);
//!   `rg --files --hidden --glob '!.git' --iglob PATTERN` lists them (the tool matches
//!   case-insensitively by default).
//! - rg runs with its default threads (one per core) and with `-j1`: the guest has one thread
//!   (wasm32-wasip2 has none to start). The runs are interleaved, so all three see the same
//!   load.
//! - Beside the wall times, each line's CPU time per run (from `/proc/self/stat`, 10 ms
//!   ticks): the tool's against rg -j1's is the comparison other work on the machine does
//!   not distort.
//!
//! `cargo bench -p airlock --bench search`; `AIRLOCK_BENCH_RUNS` sets the timed runs per
//! line (10, after 2 warm-up runs); a first argument keeps only the lines whose label holds
//! it. `AIRLOCK_BENCH_TOOLS=<dir>` loads `grep_search.wasm` and `glob.wasm` from `<dir>`
//! instead of the built-ins, to compare two builds of the tools without rebuilding the host.

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock_engine::capability::Preopen;
use airlock_engine::registry::{PluginDirs, Registry};
use airlock_engine::runtime::{LoadedComponent, Runtime, Sandbox};
use airlock_files::content_hash;
use support::{Summary, count_from_env, header, human, load_average};

/// The scheduler's defaults (`CallLimits::default`).
const MEMORY: usize = 256 << 20;
const DEADLINE: Duration = Duration::from_secs(120);
const WARMUP: usize = 2;

/// One query, as the tool's arguments and as rg's.
struct Query {
    label: &'static str,
    tool: &'static str,
    args: serde_json::Value,
    rg: Vec<&'static str>,
}

fn queries() -> Vec<Query> {
    use serde_json::json;
    let grep = |label, args, rg: &[&'static str]| Query {
        label,
        tool: "grep_search",
        args,
        rg: [&["--count", "--hidden", "--glob", "!.git", "--max-filesize", "8M"], rg].concat(),
    };
    let glob = |label, pattern: &'static str| Query {
        label,
        tool: "glob",
        args: json!({ "pattern": pattern }),
        rg: vec!["--files", "--hidden", "--glob", "!.git", "--iglob", pattern],
    };
    vec![
        grep("grep: rare literal", json!({"pattern": tree::RARE}), &["--", tree::RARE]),
        grep("grep: common literal", json!({"pattern": tree::COMMON}), &["--", tree::COMMON]),
        grep("grep: regex", json!({"pattern": tree::REGEX}), &["--", tree::REGEX]),
        grep("grep: case-insensitive", json!({"pattern": tree::CASELESS}), &["--", tree::CASELESS]),
        grep(
            "grep: include *.md",
            json!({"pattern": tree::COMMON, "include": "*.md"}),
            &["--glob", "*.md", "--", tree::COMMON],
        ),
        glob("glob: **/*.rs", "**/*.rs"),
        glob("glob: crate_1*/**/*.md", "crate_1*/**/*.md"),
        glob("glob: no match (walk only)", "**/*.nomatch"),
    ]
}

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 10);
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let rg = std::env::var("AIRLOCK_BENCH_RG").unwrap_or_else(|_| "/usr/bin/rg".into());
    header(
        "grep_search and glob beside rg",
        &format!("{WARMUP} warm-up + {runs} timed runs per line, interleaved; {}", rg_version(&rg)),
    );
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-search");
    let (tree, stats) = tree::ensure(&root);
    println!("tree {} · {stats}", tree.display());

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio");
    let cache = tempfile::tempdir().expect("temp cache");
    let airlock = Arc::new(Runtime::new(cache.path().to_path_buf()).expect("runtime"));
    let tools = runtime.block_on(components(&airlock));
    let mut sandbox = Sandbox::empty(MEMORY, DEADLINE);
    sandbox.workspace_root = tree.to_string_lossy().into_owned();
    sandbox.call_id = "call_0".into();
    sandbox.preopens = vec![Preopen { host: tree.clone(), guest: sandbox.workspace_root.clone(), writable: false }];

    println!(
        "{:<28} {:>22} {:>22} {:>22} {:>7} {:>7}",
        "query", "tool median (p10-p90)", "rg median (p10-p90)", "rg -j1 median (p10-p90)", "/rg", "/rg-j1"
    );
    for query in queries() {
        if filter.as_deref().is_some_and(|f| !query.label.contains(f)) {
            continue;
        }
        let component = tools.iter().find(|(name, _)| *name == query.tool).map(|(_, c)| c).expect("tool");
        let args = query.args.to_string();
        let call = || {
            runtime.block_on(async {
                let mut instance =
                    airlock.instantiate(component, Arc::from("bench"), &sandbox).await.expect("instantiate");
                instance.execute(query.tool, &args).await.expect("execute").expect("tool ok").llm_text()
            })
        };
        let rg_call = |threads: Option<&str>| {
            let mut command = Command::new(&rg);
            command.current_dir(&tree).args(threads).args(&query.rg);
            let output = command.output().expect("run rg");
            assert!(output.status.code().is_some_and(|c| c <= 1), "rg failed: {output:?}");
            String::from_utf8_lossy(&output.stdout).into_owned()
        };
        // The tool and rg must agree on what they found, or the comparison is void.
        let (tool_found, rg_found) = (found_by_tool(&call()), found_by_rg(&query, &rg_call(None)));
        let agree = if tool_found == rg_found { "agree".to_string() } else { "DISAGREE".to_string() };

        let (mut tool, mut rg_n, mut rg_1) = (Vec::new(), Vec::new(), Vec::new());
        // CPU time in clock ticks over the timed runs: the tool's (this process), rg's and
        // rg -j1's (children waited for). Load from other work stretches wall time, not these.
        let mut cpu = [0u64; 3];
        for i in 0..WARMUP + runs {
            let timed = |f: &dyn Fn()| {
                let (started, ticks) = (Instant::now(), cpu_ticks());
                f();
                let after = cpu_ticks();
                (started.elapsed(), (after.0 - ticks.0, after.1 - ticks.1))
            };
            let samples =
                [timed(&|| drop(call())), timed(&|| drop(rg_call(None))), timed(&|| drop(rg_call(Some("-j1"))))];
            if i >= WARMUP {
                tool.push(samples[0].0);
                rg_n.push(samples[1].0);
                rg_1.push(samples[2].0);
                cpu[0] += samples[0].1.0;
                cpu[1] += samples[1].1.1;
                cpu[2] += samples[2].1.1;
            }
        }
        let (tool, rg_n, rg_1) = (Summary::of(&tool), Summary::of(&rg_n), Summary::of(&rg_1));
        let ratio = |a: &Summary, b: &Summary| a.median.as_secs_f64() / b.median.as_secs_f64();
        let per_run = |ticks: u64| Duration::from_millis(ticks * 10 / runs as u64);
        println!(
            "{:<28} {:>22} {:>22} {:>22} {:>6.2}x {:>6.2}x  found {tool_found} ({agree} with rg: {rg_found}) · load {}",
            query.label,
            spread(&tool),
            spread(&rg_n),
            spread(&rg_1),
            ratio(&tool, &rg_n),
            ratio(&tool, &rg_1),
            load_average(),
        );
        println!(
            "{:<28} CPU per run: tool {} · rg {} · rg -j1 {} · tool/rg-j1 {:.2}x",
            "",
            human(per_run(cpu[0])),
            human(per_run(cpu[1])),
            human(per_run(cpu[2])),
            cpu[0] as f64 / cpu[2].max(1) as f64,
        );
    }
}

/// CPU time in clock ticks (10 ms) so far: this process's (all its threads), and that of
/// its children waited for, from `/proc/self/stat` (utime + stime, cutime + cstime).
fn cpu_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces): utime is the 14th.
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    (field(11) + field(12), field(13) + field(14))
}

/// `12.3 ms (11.9-13.0)`.
fn spread(summary: &Summary) -> String {
    format!("{} ({}-{})", human(summary.median), human(summary.p10), human(summary.p90))
        .replace(" ms", "ms")
        .replace(" s", "s")
}

fn rg_version(rg: &str) -> String {
    Command::new(rg)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().next().unwrap_or_default().to_string())
        .unwrap_or_else(|e| panic!("cannot run {rg} ({e}): install ripgrep or set AIRLOCK_BENCH_RG"))
}

/// The built-in `grep_search` and `glob`, or the ones in `AIRLOCK_BENCH_TOOLS`.
async fn components(runtime: &Runtime) -> Vec<(&'static str, LoadedComponent)> {
    let mut tools = Vec::new();
    if let Ok(dir) = std::env::var("AIRLOCK_BENCH_TOOLS") {
        println!("tools from {dir}");
        for name in ["grep_search", "glob"] {
            let bytes = std::fs::read(PathBuf::from(&dir).join(format!("{name}.wasm"))).expect("tool component");
            let (component, _) = runtime.load(&content_hash(&bytes), || Ok(bytes.clone())).expect("load");
            tools.push((name, component));
        }
        return tools;
    }
    let none = PathBuf::from("/nonexistent-airlock-bench");
    let registry =
        Registry::load(runtime, &PluginDirs { user: none.clone(), workspace: none, ..PluginDirs::default() }).await;
    assert!(registry.problems.is_empty(), "{:?}", registry.problems);
    for name in ["grep_search", "glob"] {
        tools.push((name, registry.get(name).expect("built-in").plugin.component(runtime).await.expect("load")));
    }
    tools
}

/// The count the tool reports: matches for `grep_search`, files for `glob`.
fn found_by_tool(text: &str) -> u64 {
    if text.starts_with("No ") {
        return 0;
    }
    text.strip_prefix("Found ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("unexpected tool output: {}", text.lines().next().unwrap_or_default()))
}

/// The same count from rg's output: the sum of `path:count` lines, or the files listed.
fn found_by_rg(query: &Query, stdout: &str) -> u64 {
    if query.tool == "glob" {
        return stdout.lines().count() as u64;
    }
    stdout.lines().filter_map(|line| line.rsplit(':').next()?.parse::<u64>().ok()).sum()
}

/// The generated tree: its layout, its content, and the words the queries look for.
mod tree {
    use std::fs::{self, File};
    use std::io::Write as _;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, SystemTime};

    /// Bump when the layout or the content changes: the cached tree is then generated again.
    const VERSION: &str = "search-tree v1";
    /// In about 20 searched files (and a few ignored ones).
    pub const RARE: &str = "QUASAR_ZEBRA_7";
    /// A word of the vocabulary: in about one line in eight.
    pub const COMMON: &str = "value";
    /// One line in 40 declares such a function.
    pub const REGEX: &str = r"fn\s+[a-z]+_\d{3}\(";
    /// One line in 700 holds a FIXME, in one of three spellings.
    pub const CASELESS: &str = "(?i)fixme";

    const CRATES: usize = 50;
    const MODULES: usize = 20;
    /// Searched text files per module (25,000 in all).
    const SOURCES: usize = 25;
    /// `*.log` files per module, ignored by the root's .gitignore (5,000).
    const LOGS: usize = 5;
    /// Files with NUL bytes per module: walked, skipped as binary (2,000).
    const BINARIES: usize = 2;
    /// Files per crate under `target/`, ignored by the root's .gitignore (12,500).
    const BUILD_OUTPUTS: usize = 250;
    /// Files per crate under `src/generated/`, ignored by the crate's own .gitignore (5,000).
    const GENERATED: usize = 100;
    /// Hidden files per crate under `.config/`: searched (rg needs `--hidden`).
    const HIDDEN: usize = 4;
    const EXTENSIONS: [&str; 6] = ["rs", "rs", "ts", "ts", "md", "txt"];
    const WORDS: [&str; 32] = [
        "let", "value", "self", "return", "match", "result", "error", "config", "index", "buffer", "count", "state",
        "handle", "request", "option", "string", "parse", "write", "read", "into", "from", "with", "node", "tree",
        "token", "cache", "entry", "limit", "path", "event", "stream", "frame",
    ];

    /// The tree under `root/tree`, generated unless a complete one of this version is there,
    /// and a line saying how large it is.
    pub fn ensure(root: &Path) -> (PathBuf, String) {
        let tree = root.join("tree");
        let stamp = root.join("stamp");
        if let Ok(text) = fs::read_to_string(&stamp)
            && let Some(stats) = text.strip_prefix(VERSION)
        {
            return (tree.canonicalize().expect("tree"), stats.trim().to_string());
        }
        println!("generating the tree under {} (once) ...", root.display());
        let _ = fs::remove_dir_all(&tree);
        let partial = root.join(format!("tree.partial-{}", std::process::id()));
        let _ = fs::remove_dir_all(&partial);
        let stats = generate(&partial);
        fs::rename(&partial, &tree).expect("move the tree in place");
        let temp = root.join("stamp.partial");
        fs::write(&temp, format!("{VERSION} {stats}")).expect("stamp");
        fs::rename(&temp, &stamp).expect("stamp");
        (tree.canonicalize().expect("tree"), stats)
    }

    /// SplitMix64: the same bytes on every machine.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    #[derive(Default)]
    struct Counts {
        files: u64,
        bytes: u64,
        ignored_files: u64,
        ignored_bytes: u64,
    }

    fn generate(tree: &Path) -> String {
        let mut counts = Counts::default();
        let mut put = |path: PathBuf, bytes: &[u8], ignored: bool| {
            fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            let mut file = File::create(&path).expect("create");
            file.write_all(bytes).expect("write");
            // Old files: glob lists them alphabetically, the same order on every run.
            file.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000)).expect("mtime");
            counts.files += 1;
            counts.bytes += bytes.len() as u64;
            if ignored {
                counts.ignored_files += 1;
                counts.ignored_bytes += bytes.len() as u64;
            }
        };
        put(tree.join(".git/HEAD"), b"ref: refs/heads/main\n", true);
        put(tree.join(".gitignore"), b"target/\n*.log\n", false);
        let mut serial = 0usize;
        for c in 0..CRATES {
            let krate = tree.join(format!("crate_{c:02}"));
            put(krate.join(".gitignore"), b"generated/\n", false);
            put(krate.join("Cargo.toml"), format!("[package]\nname = \"crate_{c:02}\"\n").as_bytes(), false);
            let long_line: String = (0..6_000).map(|i| WORDS[(i * 7 + c) % WORDS.len()]).collect::<Vec<_>>().join(" ");
            put(krate.join("assets/bundle.min.js"), long_line.as_bytes(), false);
            for h in 0..HIDDEN {
                put(krate.join(format!(".config/settings_{h}.toml")), &text(&mut Random(serial as u64), 2_000), false);
                serial += 1;
            }
            for m in 0..MODULES {
                let module = krate.join(format!("src/mod_{m:02}"));
                for f in 0..SOURCES {
                    serial += 1;
                    let mut random = Random(serial as u64);
                    let size = 2_048 + random.below(16_384);
                    let mut body = text(&mut random, size);
                    if serial % 1_250 == 7 {
                        body.extend_from_slice(format!("const MARK: &str = \"{RARE}\";\n").as_bytes());
                    }
                    let extension = EXTENSIONS[(f + m) % EXTENSIONS.len()];
                    put(module.join(format!("file_{f:02}.{extension}")), &body, false);
                }
                for l in 0..LOGS {
                    serial += 1;
                    let mut random = Random(serial as u64);
                    let size = 2_048 + random.below(16_384);
                    let mut body = text(&mut random, size);
                    body.extend_from_slice(format!("{RARE} in a log\n").as_bytes());
                    put(module.join(format!("run_{l}.log")), &body, true);
                }
                for b in 0..BINARIES {
                    serial += 1;
                    let mut random = Random(serial as u64);
                    let mut body = vec![0u8; 64];
                    body.extend((0..10_000).map(|_| random.next() as u8));
                    body.extend_from_slice(COMMON.as_bytes());
                    put(module.join(format!("blob_{b}.bin")), &body, false);
                }
            }
            for g in 0..GENERATED {
                serial += 1;
                let mut random = Random(serial as u64);
                let size = 2_048 + random.below(16_384);
                let mut body = text(&mut random, size);
                if g % 50 == 0 {
                    body.extend_from_slice(format!("// {RARE}\n").as_bytes());
                }
                put(krate.join(format!("src/generated/gen_{g:03}.rs")), &body, true);
            }
            for t in 0..BUILD_OUTPUTS {
                serial += 1;
                let mut random = Random(serial as u64);
                let size = 2_048 + random.below(16_384);
                put(krate.join(format!("target/debug/deps/out_{t:03}.rs")), &text(&mut random, size), true);
            }
        }
        format!(
            "{} files, {} MB; ignored: {} files, {} MB",
            counts.files,
            counts.bytes / 1_000_000,
            counts.ignored_files,
            counts.ignored_bytes / 1_000_000
        )
    }

    /// About `size` bytes of code-like ASCII lines.
    fn text(random: &mut Random, size: usize) -> Vec<u8> {
        let mut out = String::with_capacity(size + 128);
        while out.len() < size {
            let indent = random.below(4) * 4;
            out.extend(std::iter::repeat_n(' ', indent));
            match random.below(700) {
                0..=16 => {
                    let name = WORDS[random.below(WORDS.len())];
                    out.push_str(&format!("fn {name}_{:03}({name}: u32) -> u32 {{", random.below(1_000)));
                }
                17 => out.push_str(["// FIXME: ", "// fixme ", "// FixMe: "][random.below(3)]),
                _ => {
                    for w in 0..1 + random.below(10) {
                        if w > 0 {
                            out.push(' ');
                        }
                        out.push_str(WORDS[random.below(WORDS.len())]);
                    }
                    out.push(';');
                }
            }
            out.push('\n');
        }
        out.into_bytes()
    }
}
