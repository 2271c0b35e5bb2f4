"""Message classes made from definitions: imports, fields, defaults,
constants, repr, equality, services and user packages; and CDR that is byte
for byte what ROS 2 writes (checked against rosbags when installed)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import hibari
from hibari.msg import deserialize, serialize


def test_messages_import_by_package_in_both_spellings() -> None:
    from hibari.msg.sensor_msgs import Image
    from hibari.msg.sensor_msgs.msg import Image as Image2
    from hibari.msg.std_srvs import SetBool
    from hibari.msg.std_srvs.srv import SetBool as SetBool2

    assert Image is Image2 and SetBool is SetBool2
    assert Image._type == "sensor_msgs/msg/Image"
    assert SetBool.Request._type == "std_srvs/srv/SetBool_Request"
    assert hibari.msg.get_message("sensor_msgs/Image") is Image
    assert "Image" in dir(hibari.msg.sensor_msgs)
    with pytest.raises(ImportError):
        __import__("hibari.msg.no_such_package")
    with pytest.raises(ImportError):
        exec("from hibari.msg.sensor_msgs import NoSuchType")


def test_fields_take_the_definitions_defaults_and_constants_are_class_attributes() -> None:
    from hibari.msg.sensor_msgs import NavSatStatus, LaserScan
    from hibari.msg.geometry_msgs import Quaternion, PoseWithCovariance

    assert Quaternion().w == 1.0  # `float64 w 1` in the definition
    assert NavSatStatus.STATUS_FIX == 0 and NavSatStatus.SERVICE_GPS == 1
    scan = LaserScan()
    assert isinstance(scan.ranges, np.ndarray) and scan.ranges.dtype == np.float32 and scan.ranges.size == 0
    cov = PoseWithCovariance().covariance
    assert cov.shape == (36,) and cov.dtype == np.float64 and not cov.any()
    a, b = LaserScan(), LaserScan()
    assert a.header is not b.header, "nested defaults are fresh per instance"
    assert LaserScan.__slots__ == tuple(LaserScan.get_fields_and_field_types())


def test_unknown_fields_are_refused_at_construction_and_assignment() -> None:
    from hibari.msg.std_msgs import String

    with pytest.raises(TypeError, match="std_msgs/msg/String has no field colour"):
        String(colour="red")
    s = String()
    with pytest.raises(AttributeError):
        s.colour = "red"  # type: ignore[attr-defined]


def test_repr_names_the_type_and_every_field_and_equality_compares_fields() -> None:
    from hibari.msg.sensor_msgs import Image
    from hibari.msg.std_srvs import SetBool

    img = Image(height=2, width=1, encoding="mono8", step=1, data=np.array([7, 8], dtype=np.uint8))
    text = repr(img)
    assert text.startswith("sensor_msgs.msg.Image(header=std_msgs.msg.Header(")
    assert "encoding='mono8'" in text and "data=array([7, 8], dtype=uint8)" in text
    assert repr(SetBool.Request(data=True)) == "std_srvs.srv.SetBool_Request(data=True)"
    same = Image(height=2, width=1, encoding="mono8", step=1, data=np.array([7, 8], dtype=np.uint8))
    assert img == same
    same.data = np.array([7, 9], dtype=np.uint8)
    assert img != same


def test_a_round_trip_gives_an_equal_message() -> None:
    from hibari.msg.sensor_msgs import Imu, JointState, PointCloud2, PointField

    imu = Imu()
    imu.header.frame_id = "imu"
    imu.orientation.x = 0.5
    imu.angular_velocity_covariance = np.arange(9, dtype=np.float64)
    joints = JointState(name=["a", "bb"], position=np.array([1.0, 2.0]), velocity=np.array([]),
                        effort=np.array([3.5]))
    cloud = PointCloud2(height=1, width=2, fields=[PointField(name="x", offset=0, datatype=7, count=1)],
                        is_bigendian=False, point_step=4, row_step=8, data=bytes(range(8)), is_dense=True)
    for msg in (imu, joints, cloud):
        back = deserialize(serialize(msg), type(msg))
        assert back == msg, (back, msg)


ROSBAGS_TYPES = [
    ("std_msgs/msg/String", lambda m: setattr(m, "data", "héllo")),
    ("sensor_msgs/msg/Image", lambda m: (setattr(m, "height", 2), setattr(m, "width", 3),
                                         setattr(m, "encoding", "rgb8"), setattr(m, "step", 9),
                                         setattr(m, "data", np.arange(18, dtype=np.uint8)))),
    ("sensor_msgs/msg/LaserScan", lambda m: (setattr(m, "angle_max", 1.5),
                                             setattr(m, "ranges", np.array([1, 2.5, 3], dtype=np.float32)),
                                             setattr(m, "intensities", np.array([], dtype=np.float32)))),
    ("geometry_msgs/msg/PoseWithCovarianceStamped", lambda m: setattr(m.pose.pose.position, "z", -2.0)),
    ("sensor_msgs/msg/JointState", lambda m: (setattr(m, "name", ["j1", ""]),
                                              setattr(m, "position", np.array([0.25, -1.0])))),
    ("std_msgs/msg/Empty", lambda m: None),
    ("diagnostic_msgs/msg/DiagnosticArray", lambda m: None),
]


@pytest.mark.parametrize("type_name,fill", ROSBAGS_TYPES, ids=[t for t, _ in ROSBAGS_TYPES])
def test_cdr_is_byte_for_byte_what_rosbags_writes_and_reads(type_name, fill) -> None:
    rosbags = pytest.importorskip("rosbags.typesys")
    store = rosbags.get_typestore(rosbags.Stores.ROS2_JAZZY)
    cls = hibari.msg.get_message(type_name)
    msg = cls()
    fill(msg)
    ours = serialize(msg)
    theirs_msg = store.deserialize_cdr(ours, type_name)
    assert bytes(store.serialize_cdr(theirs_msg, type_name)) == ours
    assert deserialize(bytes(store.serialize_cdr(theirs_msg, type_name)), cls) == msg


def test_big_endian_cdr_decodes_into_big_endian_views() -> None:
    rosbags = pytest.importorskip("rosbags.typesys")
    store = rosbags.get_typestore(rosbags.Stores.ROS2_JAZZY)
    from hibari.msg.sensor_msgs import LaserScan

    scan = LaserScan(ranges=np.array([1.0, 2.0], dtype=np.float32))
    theirs = store.deserialize_cdr(serialize(scan), "sensor_msgs/msg/LaserScan")
    big = bytes(store.serialize_cdr(theirs, "sensor_msgs/msg/LaserScan", little_endian=False))
    back = deserialize(big, LaserScan)
    assert back.ranges.dtype.byteorder == ">" and list(back.ranges) == [1.0, 2.0]


def test_user_packages_from_hibari_interface_path_become_modules(tmp_path) -> None:
    pkg = tmp_path / "my_msgs"
    (pkg / "msg").mkdir(parents=True)
    (pkg / "srv").mkdir()
    (pkg / "msg" / "Reading.msg").write_text("int8 LOW=-1\nstd_msgs/Header header\nfloat32[] values\nstring<=4 tag \"ab\"\n")
    (pkg / "srv" / "Reset.srv").write_text("bool hard\n---\nuint8 code\n")
    script = textwrap.dedent("""
        import numpy as np
        from hibari.msg.my_msgs import Reading, Reset
        from hibari.msg import serialize, deserialize
        r = Reading(values=np.array([1.5], dtype=np.float32))
        assert r.tag == "ab" and Reading.LOW == -1
        assert deserialize(serialize(r), Reading) == r
        assert Reset.Response().code == 0
        try:
            serialize(Reading(tag="abcde"))
        except ValueError as e:
            print("refused:", e)
    """)
    stdout = run_with_interfaces(tmp_path, script)
    assert "refused: my_msgs/msg/Reading.tag: string of 5 bytes exceeds its bound of 4" in stdout


def test_fields_named_like_python_keywords_or_self_construct_and_keep_fresh_defaults(tmp_path) -> None:
    # The classes' __init__ is written out as Python source with one keyword
    # per field; names Python cannot take as keywords fall back to **kwargs.
    pkg = tmp_path / "odd_msgs"
    (pkg / "msg").mkdir(parents=True)
    (pkg / "msg" / "Keyword.msg").write_text("int32 from\nstring class\nint32 x 7\n")
    (pkg / "msg" / "Selfish.msg").write_text("int32 self\nint16[3] fixed [1, 2, 3]\nfloat64[] free\nstd_msgs/Header header\n")
    script = textwrap.dedent("""
        from hibari.msg.odd_msgs import Keyword, Selfish
        from hibari.msg import serialize, deserialize
        k = Keyword(**{"from": 3, "class": "c"})
        assert getattr(k, "from") == 3 and getattr(k, "class") == "c" and k.x == 7
        assert deserialize(serialize(k), Keyword) == k
        s = Selfish(self=5)
        assert s.self == 5 and list(s.fixed) == [1, 2, 3] and s.free.size == 0
        a, b = Selfish(), Selfish()
        assert a.fixed is not b.fixed and a.free is not b.free and a.header is not b.header
        a.fixed[0] = 9
        assert list(Selfish().fixed) == [1, 2, 3]
        for cls, bad in ((Keyword, {"to": 1}), (Selfish, {"other": 1})):
            try:
                cls(**bad)
            except TypeError as e:
                print("refused:", e)
    """)
    stdout = run_with_interfaces(tmp_path, script)
    assert "refused: odd_msgs/msg/Keyword has no field to; its fields are from, class, x" in stdout
    assert "refused: odd_msgs/msg/Selfish has no field other; its fields are self, fixed, free, header" in stdout


def run_with_interfaces(path: "os.PathLike[str]", script: str) -> str:
    """Runs ``script`` in a Python of its own with ``HIBARI_INTERFACE_PATH``
    set to ``path``; returns what it printed (it must succeed)."""
    env = dict(os.environ, HIBARI_INTERFACE_PATH=str(path))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_hibari_distro_chooses_the_bundled_packages() -> None:
    script = "import hibari; print('service_msgs' in hibari.msg.packages())"
    run = lambda distro: subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,  # noqa: E731
                                        timeout=60, env=dict(os.environ, HIBARI_DISTRO=distro))
    assert run("jazzy").stdout.strip() == "True"
    assert run("humble").stdout.strip() == "False"
    bad = run("rolling-ish")
    assert bad.returncode != 0 and "HIBARI_DISTRO=`rolling-ish` is not a known distribution" in bad.stderr
