"""Three tests for `pytest --hazardlab` on a GPU: one races, one is the same with the fix, one uses a DataLoader
with worker processes. Only the racy one may fail (checker/pytest/check_plugin_on_gpu.py runs them)."""
import pytest

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

ELEMENTS = 1 << 20  # 4 MiB of float32: a copy the host can outrun


def test_racy_staging():
    pinned = torch.ones(ELEMENTS, pin_memory=True)
    device = pinned.to("cuda", non_blocking=True)
    pinned.fill_(2)  # the next batch, written before the copy was known to have read this one
    torch.cuda.synchronize()
    assert device.numel() == ELEMENTS  # the data itself may or may not have gone wrong this time


def test_staging_with_the_fix():
    pinned = torch.ones(ELEMENTS, pin_memory=True)
    device = pinned.to("cuda", non_blocking=True)
    torch.cuda.current_stream().synchronize()
    pinned.fill_(2)
    assert device.sum().item() == ELEMENTS


def test_dataloader_with_workers():
    rows = torch.arange(64 * 256, dtype=torch.float32).reshape(64, 256)
    loader = DataLoader(TensorDataset(rows), batch_size=8, num_workers=2, pin_memory=True)
    total = torch.zeros((), device="cuda")
    for (batch,) in loader:
        total += batch.to("cuda", non_blocking=True).sum()
    assert total.item() == rows.sum().item()
