"""Clean-up on a Docker engine shared by several platforms.

Match ids are only unique within one platform's database, so every
container also carries `gemarena.instance`, and clean-up by match (and the
age reaper of a platform) only touches its own instance's containers.
"""

from __future__ import annotations

import os
import secrets
import time

import pytest

from arena import (
    BotSpec,
    MatchRequest,
    builtin_bot_dir,
    play_match,
    reap_sandboxes,
    remove_match_sandboxes,
)

pytestmark = pytest.mark.docker


@pytest.fixture
def api():
    from sandbox.docker_backend import DockerBackend

    return DockerBackend().api()


def labels_of(api, match_tag: str) -> list[dict[str, str]]:
    found = api.containers(all=True, filters={"label": f"gemarena.match={match_tag}"})
    return [c.get("Labels") or {} for c in found]


def test_match_containers_carry_the_instance(api) -> None:
    tag, instance = f"inst-{secrets.token_hex(3)}", f"t{os.getpid()}"
    bot = str(builtin_bot_dir("splendor-duel", "random"))
    seen: list[list[dict[str, str]]] = []

    def peek(step) -> None:
        if not seen:
            seen.append(labels_of(api, tag))

    request = MatchRequest(
        game="splendor-duel",
        bots=[BotSpec("a", bot), BotSpec("b", bot)],
        seed=3,
        sandbox="docker",
        match_id=tag,
        instance=instance,
    )
    play_match(request, on_step=peek)
    assert len(seen[0]) == 2
    assert all(lab.get("gemarena.instance") == instance for lab in seen[0])
    assert labels_of(api, tag) == []  # and they are gone after the match


def test_clean_up_leaves_other_platforms_alone(api) -> None:
    """Two platforms' containers for the same match id: each platform's
    clean-up (by match and by age) removes only its own."""
    tag = f"shared-{secrets.token_hex(3)}"
    image = os.environ.get("SANDBOX_IMAGE") or "gemarena-bot:current"
    old = f"{time.time() - 3600:.3f}"
    ours, theirs = f"a{secrets.token_hex(4)}", f"b{secrets.token_hex(4)}"
    made = {}
    try:
        for instance in (ours, theirs, ours, theirs):
            labels = {
                "gemarena.sandbox": "1",
                "gemarena.sandbox.created": old,
                "gemarena.match": tag,
                "gemarena.instance": instance,
            }
            name = f"gemarena-bot-{tag}-{instance}-{len(made)}"
            made[api.create_container(image, ["true"], name=name, labels=labels)["Id"]] = instance

        def left() -> list[str]:
            return sorted(lab["gemarena.instance"] for lab in labels_of(api, tag))

        removed = remove_match_sandboxes(tag, instance=ours)
        assert removed is not None and len(removed) == 2
        assert left() == [theirs, theirs]
        # the age reaper of a platform is just as selective
        assert reap_sandboxes(0, instance=ours) == []
        assert left() == [theirs, theirs]
        assert len(reap_sandboxes(0, instance=theirs)) == 2
        assert left() == []
    finally:
        import docker

        for cid in made:
            try:
                api.remove_container(cid, force=True)
            except docker.errors.NotFound:
                pass
