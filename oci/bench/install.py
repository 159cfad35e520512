# Median time of `airlock plugins install` from a file vs. from a local registry (BENCHMARKS.md,
# "Issue 30: plugins from OCI registries"). Usage: python3 oci/bench/install.py AIRLOCK COMPONENT RUNS
import os, subprocess, tempfile, time, statistics, socket, sys
BIN, WASM, RUNS = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = tempfile.mkdtemp()
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
open(f"{d}/c.yml", "w").write(f"version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {d}/s\nhttp:\n  addr: 127.0.0.1:{port}\n")
reg = subprocess.Popen(["docker-registry", "serve", f"{d}/c.yml"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1)
home = f"{d}/home"; os.makedirs(home)
env = {"HOME": home, "AIRLOCK_HOME": f"{home}/.airlock", "AIRLOCK_CACHE_DIR": f"{d}/cache", "AIRLOCK_SYSTEM_DIR": f"{d}/sys", "PATH": "/usr/bin:/bin"}
def run(*args):
    r = subprocess.run([BIN, "plugins", *args], env=env, cwd=home, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
ref = f"oci://127.0.0.1:{port}/bench/echo:v1"
run("publish", WASM, ref)
res = {}
for name, src in (("file", WASM), ("oci", ref)):
    run("install", src); run("remove", "echo_tools")  # warm the compile cache
    times = []
    for _ in range(RUNS):
        t = time.perf_counter(); run("install", src); times.append(time.perf_counter() - t)
        run("remove", "echo_tools")
    times.sort()
    res[name] = (statistics.median(times), times[len(times)//10], times[-1 - len(times)//10])
for k, (m, p10, p90) in res.items():
    print(f"{k}: median {m*1000:.1f} ms (p10 {p10*1000:.1f}, p90 {p90*1000:.1f})")
print("size", os.path.getsize(WASM))
reg.kill()
