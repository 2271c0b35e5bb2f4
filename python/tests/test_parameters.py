"""Parameters on a Python node, as rclpy has them: declare/get/set with types,
descriptors, ranges and read-only; the on/pre/post-set callbacks; overrides
from the node's options and the command line; the services another node's
client calls."""

from __future__ import annotations

import json
import os
from typing import Any, List

import pytest

import hibari
from conftest import LONG, spin_until
from hibari.exceptions import (
    InvalidParameterTypeException,
    ParameterAlreadyDeclaredException,
    ParameterImmutableException,
    ParameterNotDeclaredException,
    ParameterUninitializedException,
)
from hibari.msg.rcl_interfaces.msg import (
    FloatingPointRange,
    IntegerRange,
    ParameterDescriptor,
    SetParametersResult,
)
from hibari.parameter import Parameter


def test_a_declared_parameter_keeps_its_type(node: hibari.Node) -> None:
    p = node.declare_parameter("rate", 30)
    assert (p.name, p.type_, p.value) == ("rate", Parameter.Type.INTEGER, 30)
    with pytest.raises(ParameterAlreadyDeclaredException):
        node.declare_parameter("rate", 1)
    r = node.set_parameters([Parameter("rate", value=2.5)])[0]
    assert not r.successful
    assert r.reason == "Wrong parameter type, expected 'Type.INTEGER' got 'Type.DOUBLE'"
    assert node.set_parameters([Parameter("rate", value=60)])[0].successful
    assert node.get_parameter("rate").value == 60
    with pytest.raises(ParameterNotDeclaredException):
        node.get_parameter("nope")
    with pytest.raises(ParameterNotDeclaredException, match="nope"):
        node.set_parameters([Parameter("nope", value=1)])
    assert node.get_parameter_or("nope", Parameter("nope", value=5)).value == 5


def test_every_type_round_trips(node: hibari.Node) -> None:
    values: List[Any] = [True, -7, 2.5, "hi", [b"\x01", b"\x02"], [True, False], [1, 2], [0.5], ["a"]]
    for i, v in enumerate(values):
        node.declare_parameter(f"p{i}", v)
        got = node.get_parameter(f"p{i}")
        assert got.value == v and got.type_ == Parameter.Type.from_parameter_value(v)
    with pytest.raises(ValueError):
        node.declare_parameter("bad", [1, "a"])


def test_descriptors_ranges_and_read_only(node: hibari.Node) -> None:
    node.declare_parameter("pct", 50, ParameterDescriptor(
        description="percent", integer_range=[IntegerRange(from_value=0, to_value=100, step=10)]))
    assert not node.set_parameters([Parameter("pct", value=55)])[0].successful
    assert node.set_parameters([Parameter("pct", value=60)])[0].successful
    node.declare_parameter("gain", 0.5, ParameterDescriptor(
        floating_point_range=[FloatingPointRange(from_value=0.0, to_value=1.0, step=0.0)]))
    r = node.set_parameters([Parameter("gain", value=2.0)])[0]
    assert r.reason == "Parameter gain out of range Min: 0.0, Max: 1.0, value: 2.0"
    d = node.describe_parameter("pct")
    assert (d.name, d.description, d.type) == ("pct", "percent", 2)
    assert d.integer_range[0].step == 10
    node.declare_parameter("port", "/dev/ttyUSB0", ParameterDescriptor(read_only=True))
    r = node.set_parameters([Parameter("port", value="/dev/x")])[0]
    assert r.reason == "Trying to set a read-only parameter: port."
    with pytest.raises(ParameterImmutableException):
        node.undeclare_parameter("port")
    node.declare_parameter("dev", Parameter.Type.STRING)
    with pytest.raises(ParameterUninitializedException):
        node.get_parameter("dev")


def test_callbacks_refuse_rewrite_and_observe(node: hibari.Node) -> None:
    node.declare_parameter("gain", 1.0)
    node.declare_parameter("mode", "auto")
    seen: List[str] = []

    def check(params: List[Parameter]) -> SetParametersResult:
        too_high = any(p.name == "gain" and p.value > 10.0 for p in params)
        return SetParametersResult(successful=not too_high, reason="gain above 10" if too_high else "")

    def pre(params: List[Parameter]) -> List[Parameter]:
        return params + [Parameter("mode", value="manual")] if params[0].name == "gain" else params

    node.add_on_set_parameters_callback(check)
    node.add_pre_set_parameters_callback(pre)
    node.add_post_set_parameters_callback(lambda ps: seen.extend(p.name for p in ps))
    assert node.set_parameters([Parameter("gain", value=2.0)])[0].successful
    assert node.get_parameter("mode").value == "manual"
    assert seen == ["gain", "mode"]
    r = node.set_parameters_atomically([Parameter("gain", value=11.0)])
    assert (r.successful, r.reason) == (False, "gain above 10")
    node.remove_on_set_parameters_callback(check)
    assert node.set_parameters_atomically([Parameter("gain", value=11.0)]).successful


def test_listing_by_prefix_and_depth(node: hibari.Node) -> None:
    for name in ["a", "b.c", "b.d.e"]:
        node.declare_parameter(name, 1)
    assert sorted(node.list_parameters([], 0).names) == ["a", "b.c", "b.d.e", "use_sim_time"]
    assert node.list_parameters(["b"], 1).names == ["b.c"]
    assert set(node.get_parameters_by_prefix("b")) == {"c", "d.e"}


def test_overrides_from_options_and_the_command_line(tmp_path: Any) -> None:
    params = tmp_path / "params.yaml"
    params.write_text("/**:\n  ros__parameters:\n    rate: 10\ncam:\n  ros__parameters:\n    exposure: 0.5\n")
    ctx = hibari.Context(["prog", "--ros-args", "--params-file", str(params), "-p", "frame:=base"],
                         isolated=True)
    try:
        cam = hibari.Node("cam", context=ctx)
        assert cam.declare_parameter("rate", 30).value == 10
        assert cam.declare_parameter("exposure", 0.1).value == 0.5
        assert cam.declare_parameter("frame", "map").value == "base"
        mine = hibari.Node("mine", context=ctx, parameter_overrides=[Parameter("rate", value=99)])
        assert mine.declare_parameter("rate", 30).value == 99
        auto = hibari.Node("auto", context=ctx, automatically_declare_parameters_from_overrides=True)
        assert auto.get_parameter("frame").value == "base"
        with pytest.raises(InvalidParameterTypeException):
            hibari.Node("typed", context=ctx).declare_parameter("frame", 1)
    finally:
        ctx.shutdown()
    bad = tmp_path / "bad.yaml"
    bad.write_text("cam:\n  ros__parameters:\n    rate: [1, x]\n")
    with pytest.raises(ValueError, match=r"bad.yaml:3: parameter `rate`"):
        hibari.Context(["--ros-args", "--params-file", str(bad)], isolated=True)


def test_another_nodes_client_reads_and_sets_through_the_services(context: hibari.Context) -> None:
    from hibari.msg.rcl_interfaces.srv import GetParameters, SetParameters

    server = hibari.Node("param_server", context=context)
    server.declare_parameter("rate", 30)
    caller = hibari.Node("caller", context=context)
    executor = hibari.SingleThreadedExecutor(context=context)
    executor.add_node(server)
    get = caller.create_client(GetParameters, "/param_server/get_parameters")
    set_ = caller.create_client(SetParameters, "/param_server/set_parameters")
    assert get.wait_for_service(LONG) and set_.wait_for_service(LONG)
    future = get.call_async(GetParameters.Request(names=["rate"]))
    assert spin_until(executor, future.done, LONG)
    assert future.result().values[0].integer_value == 30
    future = set_.call_async(SetParameters.Request(parameters=[Parameter("rate", value=5).to_parameter_msg()]))
    assert spin_until(executor, future.done, LONG)
    assert future.result().results[0].successful
    assert server.get_parameter("rate").value == 5


def test_the_async_parameter_client_drives_another_node(context: hibari.Context) -> None:
    from hibari.parameter_client import AsyncParameterClient

    server = hibari.Node("remote", context=context)
    server.declare_parameter("rate", 30)
    server.declare_parameter("extra", 1, ParameterDescriptor(dynamic_typing=True))
    caller = hibari.Node("driver", context=context)
    executor = hibari.SingleThreadedExecutor(context=context)
    executor.add_node(server)
    client = AsyncParameterClient(caller, "/remote")
    assert client.wait_for_services(LONG)

    def done(future: Any) -> Any:
        assert spin_until(executor, future.done, LONG)
        return future.result()

    assert sorted(done(client.list_parameters()).result.names) == ["extra", "rate", "use_sim_time"]
    assert done(client.get_parameters(["rate"])).values[0].integer_value == 30
    assert done(client.get_parameter_types(["rate"])).types == [2]
    assert done(client.describe_parameters(["extra"])).descriptors[0].dynamic_typing
    r = done(client.set_parameters([Parameter("rate", value=60), Parameter("rate", value="x")]))
    assert [x.successful for x in r.results] == [True, False]
    assert done(client.set_parameters_atomically([Parameter("rate", value=61)])).result.successful
    assert server.get_parameter("rate").value == 61
    assert done(client.delete_parameters(["extra"])).results[0].successful
    assert not server.has_parameter("extra")
