"""`python -m evals.router_train --jobs N`: the fits computed in the pool are the ones `fit`
reads (round 31: run as `__main__`, the trainer read its own empty `FITTED` and fitted all 52
heads again one by one; a retrain under load ran past a session)."""

from __future__ import annotations

import runpy
from unittest import mock

import pytest

import evals.router_train as rt


@pytest.mark.filterwarnings("ignore:'evals.router_train' found in sys.modules")
def test_run_as_a_module_it_runs_the_imported_module_that_prefit_fills() -> None:
    with mock.patch.object(rt, "main", return_value=0) as main, \
            pytest.raises(SystemExit) as done:
        runpy.run_module("evals.router_train", run_name="__main__")
    assert main.called and done.value.code == 0
