"""Programs of the frameworks people train with, as their users write them, for `hazardlab check`: each must be
watched to its end, clean, with its output and exit status as without the checker.

  python3 frameworks.py PROGRAM       (python3 frameworks.py --list shows them)
  torchrun --standalone --nproc_per_node 2 frameworks.py ddp     (one DDP worker per GPU; torchrun starts them)

Each prints one line a run reproduces (a checksum of what it computed), and nothing that changes between runs.
Where its framework is not installed: one line naming the module, exit 77 (cannot run here)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "drivers"))
from driver_options import DriverParser  # noqa: E402
from missing_module import run_or_say_missing  # noqa: E402


def jax_loop():
    """A 200-step jitted loop fed from numpy by jax.device_put (XLA's runtime threads issue the copies). XLA times
    its kernels to choose them, which the checker changes: deterministic kernels, no autotuning."""
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                               " --xla_gpu_deterministic_ops=true --xla_gpu_autotune_level=0").strip()
    import jax
    import jax.numpy as jnp

    @jax.jit
    def step(w, x):
        return w - 0.01 * (x.T @ jnp.tanh(x @ w)) / x.shape[0]

    rng = np.random.default_rng(0)
    w = jax.device_put(np.full((256, 256), 0.001, np.float32))
    for _ in range(200):
        w = step(w, jax.device_put(rng.standard_normal((128, 256), dtype=np.float32)))
    print(f"jax: checksum {float(np.asarray(w).sum()):.4f}")


def lightning_fit():
    """A plain Trainer.fit with DataLoader(pin_memory=True, num_workers=2); Lightning imports mpi4py where it is
    installed, which starts MPI in this process."""
    import torch
    import pytorch_lightning as pl

    class Model(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))

        def training_step(self, batch, _):
            x, y = batch
            return torch.nn.functional.mse_loss(self.net(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(2048, 64), torch.randn(2048, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=64, pin_memory=True, num_workers=2)
    trainer = pl.Trainer(max_epochs=2, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Model(), loader)
    print(f"lightning: {trainer.global_step} steps")


def mpi4py_in_process(unsafe):
    """mpi4py starts MPI in this process (no mpirun), then PyTorch uploads from pinned memory."""
    from mpi4py import MPI
    import torch

    t = torch.ones(1 << 20, pin_memory=True)
    side = torch.cuda.Stream()
    for _ in range(10):
        with torch.cuda.stream(side):
            d = t.to("cuda", non_blocking=True)
        if not unsafe:
            side.synchronize()
        t.add_(1)  # unsafe: the upload may not have read t yet
        side.synchronize()
    print(f"mpi4py: rank {MPI.COMM_WORLD.Get_rank()}, {float(d.sum()) > 0}")


def faulthandler_enabled(crash):
    """Python's faulthandler installed after CUDA started (its SIGSEGV handler then stands behind the checker's);
    with `crash`, the program's own fault, which faulthandler reports before the process ends by SIGSEGV."""
    import ctypes
    import faulthandler
    import torch

    torch.cuda.init()
    faulthandler.enable()
    t = torch.ones(1 << 20, pin_memory=True)
    for _ in range(10):
        d = t.to("cuda", non_blocking=True)
        torch.cuda.synchronize()
        t.add_(1)
    print(f"faulthandler: {float(d[0])}", flush=True)
    if crash:
        ctypes.string_at(0)


def torch_compile():
    """A torch.compile'd model trained on batches uploaded from pinned memory with non_blocking=True."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.GELU(), torch.nn.Linear(256, 1)).cuda()
    step = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    batch = torch.randn(512, 256).pin_memory()
    for _ in range(50):
        loss = step(batch.to("cuda", non_blocking=True)).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"torch.compile: loss {loss.item():.4f}")


def cuda_graph():
    """A step captured with torch.cuda.graph and replayed, its input copied in from pinned memory each time."""
    import torch

    torch.manual_seed(0)
    static_in = torch.zeros(1 << 16, device="cuda")
    host = torch.arange(1 << 16, dtype=torch.float32).pin_memory()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        static_out = static_in * 2 + 1  # warm-up on a side stream, as the documentation shows
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_out = static_in * 2 + 1
    total = 0.0
    for _ in range(20):
        static_in.copy_(host, non_blocking=True)
        graph.replay()
        total += float(static_out.sum())
    print(f"cuda graph: {total:.1f}")


def transformers_loop():
    """A small GPT-2 (configured here, nothing downloaded) trained for 20 steps on batches from pinned memory."""
    import torch
    import transformers

    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=2, n_head=4, n_embd=128, vocab_size=1000, n_positions=128)
    model = transformers.GPT2LMHeadModel(config).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, 1000, (8, 128)).pin_memory()
    for _ in range(20):
        ids = tokens.to("cuda", non_blocking=True)
        loss = model(ids, labels=ids).loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"transformers: loss {loss.item():.3f}")


def cupy_loop():
    """CuPy: uploads from pinned memory on a stream, synchronized before the buffer is written again."""
    import cupy

    pinned = cupy.cuda.alloc_pinned_memory(1 << 20)
    host = np.frombuffer(pinned, np.float32, 1 << 18)
    device = cupy.empty(1 << 18, cupy.float32)
    stream = cupy.cuda.Stream(non_blocking=True)
    total = 0.0
    for i in range(20):
        host[:] = i
        device.set(host, stream=stream)
        stream.synchronize()
        total += float(device.sum())
    print(f"cupy: {total:.1f}")


def ddp_worker():
    """One worker of `torchrun --nproc_per_node 2`: a small model under DistributedDataParallel (NCCL), trained for
    two epochs on batches a DataLoader pins (pin_memory=True, num_workers=2, a DistributedSampler) and uploads with
    non_blocking=True. Rank 0 alone prints, after the ranks' losses are averaged, so that the output is one line."""
    import os
    import torch
    import torch.distributed as dist

    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    torch.manual_seed(0)  # the same data and the same first weights in every rank
    data = torch.utils.data.TensorDataset(torch.randn(2048, 64), torch.randn(2048, 1))
    sampler = torch.utils.data.distributed.DistributedSampler(data, shuffle=True, seed=0)
    loader = torch.utils.data.DataLoader(data, batch_size=64, sampler=sampler, pin_memory=True, num_workers=2)
    net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1)).cuda()
    model = torch.nn.parallel.DistributedDataParallel(net, device_ids=[local])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    steps = 0
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.cuda(non_blocking=True)), y.cuda(non_blocking=True))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            steps += 1
    mean = loss.detach().clone()
    dist.all_reduce(mean)
    mean /= dist.get_world_size()
    if dist.get_rank() == 0:
        print(f"ddp: {dist.get_world_size()} ranks, {steps} steps each, mean loss {mean.item():.4f}", flush=True)
    dist.destroy_process_group()


PROGRAMS = {
    "jax-loop": jax_loop,
    "torch-compile": torch_compile,
    "cuda-graph": cuda_graph,
    "transformers": transformers_loop,
    "cupy": cupy_loop,
    "lightning-fit": lightning_fit,
    "mpi4py-in-process/correct": lambda: mpi4py_in_process(False),
    "mpi4py-in-process/unsafe": lambda: mpi4py_in_process(True),
    "faulthandler": lambda: faulthandler_enabled(False),
    "faulthandler-crash": lambda: faulthandler_enabled(True),
    "ddp": ddp_worker,
}

if __name__ == "__main__":
    parser = DriverParser(prog="frameworks.py", description=__doc__.splitlines()[0])
    parser.add_argument("program", choices=[*PROGRAMS, "--list"], metavar="PROGRAM|--list")
    given_a_value = [word for word in sys.argv[1:] if word.startswith("--list=")]
    if given_a_value:
        parser.error(f"--list takes no value (given: {given_a_value[0]}); give --list alone")
    if "--list" in sys.argv[2:] or (sys.argv[1:2] == ["--list"] and sys.argv[2:]):
        parser.error(f"--list takes no other arguments (given: {' '.join(sys.argv[1:])}); give --list alone, "
                     "or one PROGRAM")
    program = parser.parse_args(["--", *sys.argv[1:]] if sys.argv[1:] == ["--list"] else None).program
    if program == "--list":
        print("\n".join(PROGRAMS))
        sys.exit(0)
    # ddp is one worker of torchrun, which tells each its rank: run alone, it would fail on the first line.
    local_rank = os.environ.get("LOCAL_RANK")
    if program == "ddp" and (local_rank is None or not local_rank.isascii() or not local_rank.isdigit()):
        shown = "unset" if local_rank is None else repr(local_rank)
        parser.error(f"ddp runs under torchrun (torchrun --nproc_per_node 2 frameworks.py ddp), which sets "
                     f"LOCAL_RANK to the worker's rank; LOCAL_RANK is {shown}, expected a whole number")

    def run():
        global np
        import numpy as np  # after the command line is read: bad input is refused where numpy is missing too
        PROGRAMS[program]()
    sys.exit(run_or_say_missing("frameworks.py", run))
