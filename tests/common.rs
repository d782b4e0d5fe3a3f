//! Helpers shared by the end-to-end tests: run the real `p4cost` binary.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (tests run the binary from here so paths in the
/// output are relative and stable).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.p4` file under `dir`, sorted, recursively.
pub fn p4_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            p4_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "p4") {
            out.push(p);
        }
    }
}

/// The preprocessed text of `path` (its own directory and `extra` as
/// include directories, `defines` as `-D`), or `None` when it does not
/// preprocess.
pub fn preprocessed(path: &Path, extra: &[PathBuf], defines: &[&str]) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut opts = p4cost_front::Options::default();
    opts.include_dirs.push(path.parent()?.to_path_buf());
    opts.include_dirs.extend(extra.iter().cloned());
    opts.defines = defines.iter().map(|d| (d.to_string(), None)).collect();
    let name = path.to_string_lossy();
    p4cost_front::stages::preprocess_source(&name, &text, &opts)
        .ok()
        .map(|o| o.text)
}

/// A local corpus named by environment variables, for tests run by hand
/// over real programs: the `.p4` files under `$dir_var` and the include
/// directories of `$include_var` (`:`-separated); `None` when `$dir_var`
/// is not set.
pub fn local_corpus(dir_var: &str, include_var: &str) -> Option<(Vec<PathBuf>, Vec<PathBuf>)> {
    let dir = std::env::var(dir_var).ok()?;
    let include: Vec<PathBuf> = std::env::var(include_var)
        .map(|s| s.split(':').map(PathBuf::from).collect())
        .unwrap_or_default();
    let mut files = Vec::new();
    p4_files(Path::new(&dir), &mut files);
    Some((files, include))
}

/// Output of one run.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `p4cost args...` from the repository root.
pub fn p4cost(args: &[&str]) -> Run {
    p4cost_in(&root(), args)
}

/// Runs `p4cost args...` from `dir`.
pub fn p4cost_in(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_p4cost"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("p4cost runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs and parses the JSON report (asserting success).
pub fn json(args: &[&str]) -> serde_json::Value {
    let r = p4cost(args);
    assert_eq!(r.code, 0, "p4cost {args:?} failed: {}", r.stderr);
    serde_json::from_str(&r.stdout).expect("valid JSON")
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("p4cost-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Copies the directory tree `from` into `to` (which exists), files and
/// subdirectories, without recursion.
pub fn copy_tree(from: &Path, to: &Path) {
    let mut stack = vec![from.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("dir") {
            let p = e.expect("entry").path();
            let dest = to.join(p.strip_prefix(from).expect("under"));
            if p.is_dir() {
                std::fs::create_dir_all(&dest).expect("mkdir");
                stack.push(p);
            } else {
                std::fs::copy(&p, &dest).expect("copy");
            }
        }
    }
}

/// A small deterministic generator: random edits that are the same every
/// run.
pub struct Lcg(pub u64);

impl Lcg {
    /// The next number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// `PATH` with the directory of the built `p4cost` first, for scripts
/// (hooks, CI steps) that call `p4cost` by name.
pub fn path_with_p4cost() -> OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_p4cost"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(&path));
    std::env::join_paths(dirs).expect("PATH")
}

/// `git ARGS` in `dir`, with the machine's own git configuration (a global
/// core.hooksPath, signing) kept out and a fixed author.
pub fn git(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("git");
    c.args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com");
    c
}

/// Asserts that `value` (the output of `what`) validates against the JSON
/// Schema `schema`, listing every error with its place.
pub fn assert_valid(schema: &serde_json::Value, value: &serde_json::Value, what: &str) {
    let validator = jsonschema::validator_for(schema).expect("a valid JSON Schema");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{what}: {errors:#?}");
}

/// Runs `p4cost args...` from the repository root with `input` on stdin (a pipe).
pub fn p4cost_stdin(args: &[&str], input: &[u8]) -> Run {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_p4cost"))
        .args(args)
        .current_dir(root())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("p4cost runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    // a writer thread, so a child that stops reading early cannot deadlock the test
    let writer = std::thread::spawn(move || {
        let _ = std::io::Write::write_all(&mut stdin, &data);
    });
    let out = child.wait_with_output().expect("p4cost ends");
    let _ = writer.join();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A language-server client over the binary's stdio (`p4cost lsp`):
/// Content-Length framing, JSON-RPC requests and notifications.
pub mod lsp {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::{Child, ChildStdin, Command, Stdio};
    use std::sync::mpsc::{channel, Receiver};
    use std::time::Duration;

    use serde_json::{json, Value};

    /// Longest wait for one message: a hung server fails the test instead of
    /// hanging it.
    pub const WAIT: Duration = Duration::from_secs(60);

    pub struct Client {
        pub child: Child,
        stdin: ChildStdin,
        pub incoming: Receiver<Value>,
        next_id: i64,
    }

    impl Client {
        /// `p4cost lsp` started in `dir`.
        pub fn start(dir: &std::path::Path) -> Client {
            Client::start_with(dir, &["lsp"])
        }

        /// p4cost started with `args` in `dir` (a server command line).
        pub fn start_with(dir: &std::path::Path, args: &[&str]) -> Client {
            Client::start_binary(env!("CARGO_BIN_EXE_p4cost").as_ref(), dir, args)
        }

        /// The binary `bin` (a release build, to measure) started with
        /// `args` in `dir`.
        pub fn start_binary(bin: &std::path::Path, dir: &std::path::Path, args: &[&str]) -> Client {
            let mut child = Command::new(bin)
                .args(args)
                .current_dir(dir)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("p4cost lsp starts");
            let stdin = child.stdin.take().expect("stdin");
            let stdout = child.stdout.take().expect("stdout");
            let (tx, incoming) = channel();
            std::thread::spawn(move || {
                let mut r = BufReader::new(stdout);
                loop {
                    let mut len = None;
                    loop {
                        let mut line = String::new();
                        if r.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let line = line.trim_end();
                        if line.is_empty() {
                            break;
                        }
                        if let Some(v) = line.strip_prefix("Content-Length: ") {
                            len = v.parse::<usize>().ok();
                        }
                    }
                    let mut body = vec![0; len.expect("Content-Length")];
                    if r.read_exact(&mut body).is_err() {
                        return;
                    }
                    let v: Value = serde_json::from_slice(&body).expect("JSON-RPC body");
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            });
            Client {
                child,
                stdin,
                incoming,
                next_id: 1,
            }
        }

        /// Closes the server's stdin (a client gone without `exit`) and
        /// gives the process to wait for.
        pub fn hang_up(self) -> Child {
            drop(self.stdin);
            self.child
        }

        pub fn send(&mut self, v: Value) {
            let body = v.to_string();
            write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
            self.stdin.flush().expect("flush");
        }

        /// Writes `bytes` as they are: a malformed message, or several
        /// framed messages in one write.
        pub fn send_raw(&mut self, bytes: &[u8]) {
            self.stdin.write_all(bytes).expect("write");
            self.stdin.flush().expect("flush");
        }

        pub fn notify(&mut self, method: &str, params: Value) {
            self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
        }

        /// `didOpen` of `text` as version 1 of the P4 document `uri`.
        pub fn open(&mut self, uri: &str, text: &str) {
            self.notify(
                "textDocument/didOpen",
                json!({"textDocument": {"uri": uri, "languageId": "p4", "version": 1, "text": text}}),
            );
        }

        /// `shutdown` (its result null), `exit`, and exit code 0.
        pub fn shut_down(mut self, seen: &mut Vec<Value>) {
            let r = self.request("shutdown", Value::Null, seen);
            assert!(r.is_null(), "{r}");
            self.notify("exit", Value::Null);
            assert!(self.child.wait().expect("exit").success());
        }

        /// The handshake: `initialize` (its result returned: the server's
        /// capabilities), then `initialized`.
        pub fn initialize(&mut self, seen: &mut Vec<Value>) -> Value {
            let init = self.request(
                "initialize",
                json!({"processId": null, "rootUri": null, "capabilities": {}}),
                seen,
            );
            self.notify("initialized", json!({}));
            init
        }

        /// Sends a request and returns its result, keeping the notifications
        /// that came first.
        pub fn request(&mut self, method: &str, params: Value, seen: &mut Vec<Value>) -> Value {
            let id = self.next_id;
            self.next_id += 1;
            self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
            loop {
                let m = self.incoming.recv_timeout(WAIT).expect("an answer in time");
                if m["id"] == id {
                    assert!(m.get("error").is_none(), "{method}: {m}");
                    return m["result"].clone();
                }
                seen.push(m);
            }
        }

        /// The next diagnostics published for version `version`.
        pub fn diagnostics(&mut self, version: i64, seen: &mut Vec<Value>) -> Vec<Value> {
            if let Some(i) = seen.iter().position(|m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["version"] == version
            }) {
                let m = seen.remove(i);
                return m["params"]["diagnostics"].as_array().expect("list").clone();
            }
            loop {
                let m = self
                    .incoming
                    .recv_timeout(WAIT)
                    .expect("diagnostics in time");
                if m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["version"] == version
                {
                    return m["params"]["diagnostics"].as_array().expect("list").clone();
                }
            }
        }
    }
}

/// One run of the binary with the resources it used.
pub struct Measured {
    /// The exit code; -1 when a signal ended it.
    pub code: i32,
    pub stdout: Vec<u8>,
    pub stderr: String,
    /// Wall-clock time of the run.
    pub elapsed: std::time::Duration,
    /// Peak resident set, in bytes.
    pub peak_rss: u64,
    /// CPU time of the run (user and system), which a loaded machine
    /// stretches far less than the wall-clock time.
    pub cpu: std::time::Duration,
}

impl Measured {
    /// Standard output as text.
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Runs `p4cost args` from `dir`, its output going to files in `scratch`
/// (so a large output is not held in a pipe), and measures its wall time,
/// CPU time and peak resident set.
///
/// p4cost is started by a small process, this test binary run again with
/// only its `measure_spawner` entry (declared by [`spawner_entry!`], which
/// every test file calling this must have), not by the test process
/// itself: Linux counts the resident set of the memory a process replaces
/// at exec in its peak, and a process spawned (vfork) or forked from the
/// test process starts from the test process's memory. The peak of p4cost
/// would then read at least what the test process (with the other tests
/// running in it) ever held.
pub fn measured(dir: &Path, args: &[&str], scratch: &Path) -> Measured {
    use std::os::unix::ffi::OsStrExt;
    std::fs::create_dir_all(scratch).expect("scratch dir");
    let mut request = dir.as_os_str().as_bytes().to_vec();
    for a in args {
        request.push(0);
        request.extend_from_slice(a.as_bytes());
    }
    std::fs::write(scratch.join(SPAWN_REQUEST), request).expect("spawn request");
    let usage_file = scratch.join(SPAWN_USAGE);
    let _ = std::fs::remove_file(&usage_file);
    let me = std::env::current_exe().expect("the test binary's path");
    let spawner = Command::new(me)
        .args([
            "--ignored",
            "--exact",
            "measure_spawner",
            "--test-threads=1",
            "-q",
        ])
        .env(SPAWN_DIR, scratch)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the spawner runs");
    let usage = std::fs::read_to_string(&usage_file).unwrap_or_else(|_| {
        panic!(
            "the spawner left no {SPAWN_USAGE} (does this test file have \
             `crate::spawner_entry!();`?): {}\n{}",
            spawner.status,
            String::from_utf8_lossy(&spawner.stdout)
        )
    });
    let fields: Vec<u64> = usage
        .split_whitespace()
        .map(|f| f.parse().expect("a number"))
        .collect();
    let [code, peak_kib, cpu_us, elapsed_us] = fields[..] else {
        panic!("{SPAWN_USAGE}: {usage:?}");
    };
    Measured {
        code: if code == u64::MAX { -1 } else { code as i32 },
        stdout: std::fs::read(scratch.join("stdout")).expect("stdout"),
        stderr: std::fs::read_to_string(scratch.join("stderr")).unwrap_or_default(),
        elapsed: std::time::Duration::from_micros(elapsed_us),
        peak_rss: peak_kib * 1024,
        cpu: std::time::Duration::from_micros(cpu_us),
    }
}

/// The environment variable that tells [`spawner`] where its request is.
const SPAWN_DIR: &str = "P4COST_TEST_SPAWN_DIR";
/// The request [`measured`] leaves for [`spawner`]: the directory to run
/// in, then each argument, separated by NUL bytes.
const SPAWN_REQUEST: &str = "spawn.request";
/// What [`spawner`] leaves: exit code (`u64::MAX` for a signal), peak
/// resident set in KiB, CPU time and wall time in microseconds.
const SPAWN_USAGE: &str = "spawn.usage";

/// Declares the ignored test `measure_spawner`: not a test, the small
/// process through which [`measured`] starts p4cost.
#[macro_export]
macro_rules! spawner_entry {
    () => {
        /// Not a test: the small process through which `common::measured`
        /// starts p4cost (it runs this binary with `--ignored --exact`).
        #[test]
        #[ignore = "the process common::measured starts p4cost from"]
        fn measure_spawner() {
            common::spawner();
        }
    };
}

/// The body of `measure_spawner`: runs the request [`measured`] left
/// (outputs to files beside it), waits with wait4(2) and writes
/// [`SPAWN_USAGE`].
// The child is reaped by wait4, which std does not know about.
#[allow(clippy::zombie_processes)]
pub fn spawner() {
    use std::os::unix::ffi::OsStringExt;
    let dir = PathBuf::from(std::env::var_os(SPAWN_DIR).expect("started by common::measured"));
    let request = std::fs::read(dir.join(SPAWN_REQUEST)).expect("spawn request");
    let mut parts = request
        .split(|&b| b == 0)
        .map(|p| OsString::from_vec(p.to_vec()));
    let cwd = parts.next().expect("a directory");
    let start = std::time::Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_p4cost"))
        .args(parts)
        .current_dir(cwd)
        .env_remove(SPAWN_DIR)
        .stdout(std::fs::File::create(dir.join("stdout")).expect("stdout file"))
        .stderr(std::fs::File::create(dir.join("stderr")).expect("stderr file"))
        .stdin(std::process::Stdio::null())
        .spawn()
        .expect("p4cost runs");
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value; wait4 fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; the pointers are
    // to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    let elapsed = start.elapsed();
    let code = if libc::WIFEXITED(status) {
        u64::try_from(libc::WEXITSTATUS(status)).unwrap_or(u64::MAX)
    } else {
        u64::MAX
    };
    let cpu = duration(usage.ru_utime) + duration(usage.ru_stime);
    // Linux reports ru_maxrss in KiB.
    let line = format!(
        "{code} {} {} {}\n",
        usage.ru_maxrss,
        cpu.as_micros(),
        elapsed.as_micros()
    );
    std::fs::write(dir.join(SPAWN_USAGE), line).expect("spawn usage");
}

/// A `timeval` of `getrusage` as a duration.
fn duration(t: libc::timeval) -> std::time::Duration {
    let secs = u64::try_from(t.tv_sec).unwrap_or(0);
    let micros = u64::try_from(t.tv_usec).unwrap_or(0);
    std::time::Duration::from_secs(secs) + std::time::Duration::from_micros(micros)
}
