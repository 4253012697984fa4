"""Real PyTorch loops for `hazardlab check`: a training loop fed by a DataLoader with pinned memory and worker
processes, and a pinned staging tensor refilled batch after batch (with an event per slot, or without).

  python3 training_loop.py train [--epochs N] [--workers N] [--batches N]
  python3 training_loop.py staging-correct|staging-unsafe

`train` prints the wall time of each epoch, for the overhead table in the README. The staging forms take no option.
Where PyTorch is not installed: one line saying so, exit 77 (cannot run here)."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "drivers"))
from driver_options import DriverParser, whole_number  # noqa: E402
from missing_module import run_or_say_missing  # noqa: E402


def train(epochs, workers, batches):
    torch.manual_seed(0)
    features, width = 1024, 256
    data = TensorDataset(torch.randn(batches * width, features), torch.randint(0, 10, (batches * width,)))
    loader = DataLoader(data, batch_size=width, shuffle=True, pin_memory=True, num_workers=workers,
                        persistent_workers=workers > 0)
    model = torch.nn.Sequential(torch.nn.Linear(features, 512), torch.nn.ReLU(), torch.nn.Linear(512, 10)).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        start = time.perf_counter()
        total = torch.zeros((), device="cuda")
        for x, y in loader:
            x = x.cuda(non_blocking=True)
            y = y.cuda(non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            total += loss.detach()
        mean = (total / len(loader)).item()  # a synchronizing read of a device value
        print(f"epoch {epoch} seconds {time.perf_counter() - start:.4f} loss {mean:.4f}", flush=True)


def staging(correct, batches=64, slots=2):
    """One pinned staging buffer per slot, refilled from the CPU and uploaded without blocking. The correct loop
    waits on the slot's event (recorded after its last upload) before refilling the slot."""
    staging_slots = [torch.empty(1 << 18, pin_memory=True) for _ in range(slots)]
    uploaded = [torch.cuda.Event() for _ in range(slots)]
    sink = torch.zeros(1 << 18, device="cuda")
    for b in range(batches):
        s = b % slots
        if correct and b >= slots:
            uploaded[s].synchronize()
        staging_slots[s].fill_(float(b))  # the host refills the slot
        sink += staging_slots[s].to("cuda", non_blocking=True)
        uploaded[s].record()
    torch.cuda.synchronize()
    print("sum", float(sink.sum()))


if __name__ == "__main__":
    parser = DriverParser(prog="training_loop.py", description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["train", "staging-correct", "staging-unsafe"])
    # No defaults here: an option of `train` given to a staging form (which would ignore it) is refused.
    parser.add_argument("--epochs", type=whole_number(1, 1000))
    parser.add_argument("--workers", type=whole_number(0, 64))
    parser.add_argument("--batches", type=whole_number(1, 100000))
    args = parser.parse_args()
    train_options = {"--epochs": (args.epochs, 2), "--workers": (args.workers, 2), "--batches": (args.batches, 200)}
    if args.mode != "train":
        for option, (given, _) in train_options.items():
            if given is not None:
                parser.error(f"{option} '{given}' is an option of `train`; {args.mode} takes none")

    def run():
        # After the command line is read: bad input is refused where PyTorch is missing too.
        global torch, DataLoader, TensorDataset
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        if args.mode == "train":
            train(*(default if given is None else given for given, default in train_options.values()))
        else:
            staging(args.mode == "staging-correct")
    sys.exit(run_or_say_missing("training_loop.py", run))
