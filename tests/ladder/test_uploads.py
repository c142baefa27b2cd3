"""The upload rejection matrix: every bad upload is refused with a clear reason."""

from __future__ import annotations

import io
import stat
import zipfile

import pytest

from ladder.uploads import UploadError, check_not_identical, check_upload

GOOD = b"import sys\nfor line in sys.stdin:\n    print('x')\n"


def make_zip(entries: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def zip_with_symlink() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", GOOD)
        info = zipfile.ZipInfo("secrets")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/shadow")
    return buffer.getvalue()


def zip_with_corrupt_data() -> bytes:
    data = bytearray(make_zip({"main.py": GOOD * 20}))
    start = 30 + len("main.py")  # the first local header has no extra field
    data[start : start + 20] = bytes(b ^ 0xFF for b in data[start : start + 20])
    return bytes(data)


def encrypted_zip() -> bytes:
    """A zip whose main.py says it is password-protected (Python cannot write one)."""
    data = bytearray(make_zip({"main.py": GOOD}))
    data[6] |= 0x1  # the local header's flags
    record = data.rindex(b"PK\x01\x02")
    data[record + 8] |= 0x1  # the central directory's flags
    return bytes(data)


def zip_with_doctored_sizes() -> bytes:
    """3 MiB of zeros whose central directory claims 50:1 instead of about 1000:1."""
    data = bytearray(make_zip({"main.py": GOOD, "pad.bin": b"\x00" * (3 << 20)}))
    record = data.rindex(b"PK\x01\x02")  # the central directory record of pad.bin
    data[record + 20 : record + 24] = ((3 << 20) // 50).to_bytes(4, "little")
    return bytes(data)


def zip_with_member(name: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", GOOD)
        archive.writestr(zipfile.ZipInfo(name), b"x")
    return buffer.getvalue()


def test_single_file_is_accepted_as_main() -> None:
    checked = check_upload("my_bot.py", GOOD)
    assert checked.files == {"main.py": GOOD}
    assert len(checked.sha256) == 64


def test_byte_order_mark_is_accepted_as_python_does() -> None:
    data = b"\xef\xbb\xbf" + GOOD
    assert check_upload("bot.py", data).files == {"main.py": data}
    assert "main.py" in check_upload("bot.zip", make_zip({"main.py": data})).files


def test_zip_of_a_folder_made_by_macos_is_that_folder() -> None:
    """Finder's "Compress" adds __MACOSX/ and .DS_Store: a second top folder
    once refused the zip ("zip only the folder that holds it", which it was)."""
    data = make_zip(
        {
            "mybot/main.py": GOOD,
            "mybot/.DS_Store": b"\x00\x00\x00\x01Bud1",
            "mybot/lib/x.py": b"X = 1\n",
            "__MACOSX/mybot/._main.py": b"\x00\x05\x16\x07",
            "__MACOSX/._mybot": b"\x00\x05\x16\x07",
        }
    )
    assert set(check_upload("mybot.zip", data).files) == {"main.py", "lib/x.py"}


def test_zip_with_helpers_is_accepted() -> None:
    data = make_zip({"main.py": GOOD, "lib/helper.py": b"X = 1\n", "weights.bin": b"\x00\x01"})
    checked = check_upload("bot.zip", data)
    assert set(checked.files) == {"main.py", "lib/helper.py", "weights.bin"}


REFUSED = [
    ("bot.py", b"x" * (2 << 20), "the limit is"),
    ("bot.py", b"", "empty"),
    ("bot.tar.gz", GOOD, "single .py file or a .zip"),
    ("bot.zip", b"PK\x03\x04 not really", "not a readable zip"),
    ("bot.zip", make_zip({"notes.txt": GOOD}), "no main.py at its root"),
    # the entry point under another name: say what the zip holds
    (
        "bot.zip",
        make_zip({"bot.py": GOOD, "b.txt": b""}),
        "it holds bot.py: a bot starts from main.py",
    ),
    ("bot.zip", make_zip({"mybot/main.py": GOOD, "notes.txt": b"x"}), "zip only the folder"),
    ("bot.zip", make_zip({"a/b/main.py": GOOD}), "zip only the folder"),
    ("bot.zip", make_zip({"main.py": GOOD, "../evil.py": b"x"}), "path traversal"),
    ("bot.zip", make_zip({"main.py": GOOD, "/etc/cron.d/x": b"x"}), "path traversal"),
    ("bot.zip", zip_with_symlink(), "symbolic link"),
    ("bot.zip", make_zip({"main.py": GOOD, "pad.txt": b"\x00" * (20 << 20)}), "limit"),
    ("bot.zip", make_zip({"main.py": GOOD, "pad.txt": b"\x00" * (3 << 20)}), "zip bomb"),
    ("bot.zip", make_zip({f"f{i}.py": b"" for i in range(300)} | {"main.py": GOOD}), "entries"),
    ("bot.zip", zip_with_doctored_sizes(), "more than 100 times"),
    ("bot.zip", zip_with_corrupt_data(), "cannot unpack 'main.py'"),
    ("bot.zip", make_zip({"main.py": GOOD, "a" * 300 + ".txt": b"x"}), "limited to 255"),
    ("bot.zip", make_zip({"main.py": GOOD, "x/" * 600 + "y": b"x"}), "the limit is 1024"),
    ("bot.zip", make_zip({"main.py": GOOD, "foo": b"x", "foo/bar": b"y"}), "both a file"),
    ("bot.zip", make_zip({"main.py": GOOD, "foo/bar": b"y", "foo": b"x"}), "both a file"),
    ("bot.zip", zip_with_member("."), "not a valid file name"),
    ("bot.py", b"print('caf\xe9')\n", "not UTF-8"),
    ("bot.py", b"def broken(:\n    pass\n", "syntax error on line 1"),
    ("bot.py", b"x = 1\x00\n", "cannot be compiled"),
    ("bot.py", b"x = " + b"-" * 200_000 + b"1\n", "nests too deeply"),
    ("bot.py", b"x = 1" + b"+1" * 500_000 + b"\n", "nests too deeply"),
    ("bot.zip", encrypted_zip(), "encrypted; upload a zip without a password"),
]


@pytest.mark.parametrize("name, data, reason", REFUSED, ids=[r for _, _, r in REFUSED])
def test_bad_uploads_are_refused_with_a_reason(name: str, data: bytes, reason: str) -> None:
    with pytest.raises(UploadError) as caught:
        check_upload(name, data)
    assert reason in str(caught.value)


def test_messages_name_the_uploaded_file() -> None:
    """A single .py file is called by its own name (it becomes main.py); in a
    zip it is main.py (QA: "main.py has a syntax error" for syntax.py)."""
    broken = b"x = 1\ndef broken(:\n"
    with pytest.raises(UploadError) as caught:
        check_upload("syntax.py", broken)
    assert str(caught.value).startswith("syntax.py has a syntax error on line 2")
    with pytest.raises(UploadError, match="^bot.py is not UTF-8"):
        check_upload("bot.py", b"print('caf\xe9')\n")
    with pytest.raises(UploadError) as caught:
        check_upload("syntax.zip", make_zip({"main.py": broken}))
    assert str(caught.value).startswith("main.py has a syntax error on line 2")


def test_identical_to_previous_version_is_refused() -> None:
    first = check_upload("bot.py", GOOD)
    with pytest.raises(UploadError, match="identical"):
        check_not_identical(check_upload("bot.py", GOOD), first.sha256)


def test_a_zip_of_one_folder_is_that_folders_contents() -> None:
    """As the starter kit and "compress this folder" tools make it."""
    checked = check_upload(
        "mybot.zip", make_zip({"mybot/main.py": GOOD, "mybot/lib/helper.py": b"X = 1\n"})
    )
    assert set(checked.files) == {"main.py", "lib/helper.py"}


def test_the_sites_starter_kit_can_be_uploaded_as_it_is() -> None:
    from ladder.views_docs import starter_zip_bytes

    checked = check_upload("splendor-duel-starter.zip", starter_zip_bytes("splendor-duel"))
    assert set(checked.files) == {"main.py", "README.md", "gemarena_sdk.py"}


SPLENDOR_BOT = b"""from gemarena_sdk import run


def decide(observation, legal):
    return legal[0]


if __name__ == "__main__":
    run(decide, game="splendor-duel")
"""


def test_a_main_py_naming_another_game_is_refused_naming_both() -> None:
    """Its bot would refuse every match (arena/sdk.py), so the upload is
    refused at once rather than after its validation matches."""
    with pytest.raises(UploadError) as caught:
        check_upload("greedy.py", SPLENDOR_BOT, "edel-stein-reich")
    assert str(caught.value).startswith(
        "greedy.py is written for splendor-duel (run(..., game='splendor-duel') on line 9), "
        "but this is a bot for edel-stein-reich"
    )
    with pytest.raises(UploadError, match="^main.py is written for splendor-duel"):
        check_upload("kit.zip", make_zip({"kit/main.py": SPLENDOR_BOT}), "edel-stein-reich")
    # its own game, or no game given: accepted
    assert check_upload("greedy.py", SPLENDOR_BOT, "splendor-duel").files["main.py"] == SPLENDOR_BOT
    assert check_upload("greedy.py", SPLENDOR_BOT).files["main.py"] == SPLENDOR_BOT


def test_a_game_named_only_at_run_time_passes() -> None:
    source = SPLENDOR_BOT.replace(b'game="splendor-duel"', b"game=GAME")
    assert check_upload("bot.py", b'GAME = "splendor-duel"\n' + source, "edel-stein-reich")
