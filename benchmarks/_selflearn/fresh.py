"""The FRESH world ("fleet") of ``benchmarks/self_learning.py``: written before the engine was
tuned for it and never run until the engine's changes were final. Its tools, task kinds,
entities and hidden rules differ from both the tuning world ("ops") and the held-out one.

A device fleet. Three task kinds over 14 devices and 6 sites:

* "update firmware of device D to V" -> ``flash_firmware(device, version, channel)``.
  **Entity-specific rule**: devices of model ``x200`` need ``backup_config(device)`` first (no
  other model does; the model is in the task's attributes). The ``channel`` that works is a
  hidden per-device constant ("stable" or "beta"), NOT in the task: a memory has to learn it per
  device.
* "restart device D at site S" -> ``reboot_device(device, site, delay)``: battery-powered
  devices need ``notify_site(site)`` first and ``delay`` "scheduled"; mains-powered ones
  ``delay`` "now" (the power source is in the attributes).
* "issue a L badge for U at site S" -> ``issue_badge(user, site, level)``: sites tagged
  ``secure`` need ``background_check(user)`` first; after the **hidden-rule change** every
  "admin" badge needs one too.

Distractors: ``read_telemetry`` and ``list_devices`` (read-only), ``open_ticket`` (a write that
never matters). ``backup_config``, ``notify_site`` and ``background_check`` fail transiently
(timeouts, 429 rate limits). There is no trailing status tool here.

**Tool-schema changes mid-run:** at 35 % ``issue_badge``'s ``user`` is renamed ``holder``; at
50 % ``reboot_device`` drops ``site`` (a call that still passes it is rejected). At 65 % the
hidden rule changes (above).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from _selflearn.world import Param, Task, Tool, World

DEVICES = [
    ("cam-lobby", "x100", "mains"), ("cam-dock", "x200", "battery"), ("door-east", "z9", "mains"),
    ("sensor-roof", "x200", "battery"), ("gate-north", "x100", "mains"), ("hvac-3f", "z9", "mains"),
    ("cam-garage", "x200", "mains"), ("tag-reader-1", "x100", "battery"), ("door-west", "x200", "mains"),
    ("sensor-cold", "z9", "battery"), ("kiosk-hall", "x100", "mains"), ("beacon-yard", "x200", "battery"),
    ("meter-main", "z9", "mains"), ("lock-lab", "x100", "battery"),
]  # fmt: skip
SITES = ["hq", "warehouse", "lab", "depot", "clinic", "annex"]
USERS = ["ana.ruiz", "ben.okafor", "chen.li", "dara.kim", "eli.novak", "fay.smith"]
LEVELS = ("visitor", "staff", "admin")
VERSIONS = ("4.2.0", "4.3.1", "5.0.0", "5.1.2")
CHANNELS = ("stable", "beta")


@dataclass(frozen=True)
class Device:
    model: str
    power: str
    site: str
    channel: str


class FleetWorld(World):
    """The fresh world (see the module docstring)."""

    name = "fresh"
    CHANGES: ClassVar[dict[str, tuple[str, float]]] = {
        "schema: issue_badge.user renamed holder": ("schema", 0.35),
        "schema: reboot_device dropped site": ("schema", 0.50),
        "rule: admin badges need a background check": ("rule", 0.65),
    }
    GOALS: ClassVar[dict[str, str]] = {
        "firmware": "flash_firmware",
        "restart": "reboot_device",
        "badge": "issue_badge",
    }
    RENAME, DROPPED, RULE = CHANGES

    def _setup(self) -> None:
        rng = self.rng
        n = max(3, min(len(DEVICES), self.config.entities * 7 // 8))
        self.devices = {
            name: Device(model, power, rng.choice(SITES), rng.choice(CHANNELS))
            for name, model, power in DEVICES[:n]
        }
        self.secure = {site: rng.random() < 0.4 for site in SITES}

    def tasks(self) -> list[Task]:
        rng, out = self._task_rng, []
        for _ in range(self.config.episodes):
            roll = rng.random()
            if roll < 0.4:
                d = rng.choice(list(self.devices))
                dev, version = self.devices[d], rng.choice(VERSIONS)
                attrs = {"model": dev.model, "power": dev.power}
                out.append(
                    Task("firmware", d, f"update firmware of device {d} to {version}",
                         {"device": d, "version": version}, (dev.model,), attrs)
                )  # fmt: skip
            elif roll < 0.7:
                d = rng.choice(list(self.devices))
                dev = self.devices[d]
                attrs = {"model": dev.model, "power": dev.power}
                out.append(
                    Task("restart", d, f"restart device {d} at site {dev.site}",
                         {"device": d, "site": dev.site}, (dev.power,), attrs)
                )  # fmt: skip
            else:
                site, user, level = rng.choice(SITES), rng.choice(USERS), rng.choice(LEVELS)
                tags = ("secure",) if self.secure[site] else ()
                out.append(
                    Task("badge", site, f"issue a {level} badge for {user} at site {site}",
                         {"user": user, "site": site, "level": level}, tags,
                         {"secure": self.secure[site]})
                )  # fmt: skip
        return out

    def current_tools(self) -> list[Tool]:
        holder = "holder" if self.changed(self.RENAME) else "user"
        reboot = [Param("device")]
        if not self.changed(self.DROPPED):
            reboot.append(Param("site"))
        reboot.append(Param("delay", enum=("now", "scheduled")))
        return [
            Tool("backup_config", "Save a device's configuration.", (Param("device"),)),
            Tool("notify_site", "Tell a site's staff about upcoming work.", (Param("site"),)),
            Tool("background_check", "Run a security check on a person.", (Param("user"),)),
            Tool("open_ticket", "Open a facilities ticket for a site.", (Param("site"),)),
            Tool("read_telemetry", "Latest telemetry of a device.", (Param("device"),),
                 read_only=True),
            Tool("list_devices", "Devices registered in the fleet.", (), read_only=True),
            Tool("flash_firmware", "Install a firmware version on a device.",
                 (Param("device"), Param("version"), Param("channel", enum=CHANNELS))),
            Tool("reboot_device", "Restart a device.", tuple(reboot)),
            Tool("issue_badge", "Issue an access badge at a site.",
                 (Param(holder), Param("site"), Param("level", enum=LEVELS))),
        ]  # fmt: skip

    def _check_required(self, task: Task) -> bool:
        return self.secure[task.entity] or (
            self.changed(self.RULE) and task.fields["level"] == "admin"
        )

    def _run(self, tool: str, args: dict[str, Any], call_id: str) -> str:
        task, done = self.state.task, self.state.done
        dev = self.devices.get(task.entity)
        if tool == "backup_config":
            self._flake("config store")
            if task.kind == "firmware" and args["device"] == task.entity:
                self._precondition("backed_up", call_id, dev.model == "x200")
            return f"configuration of {args['device']} saved"
        if tool == "notify_site":
            self._flake("paging service")
            if task.kind == "restart" and args["site"] == task.fields["site"]:
                self._precondition("notified", call_id, dev.power == "battery")
            return f"staff at {args['site']} notified"
        if tool == "background_check":
            self._flake("screening provider")
            if task.kind == "badge" and args["user"] == task.fields["user"]:
                self._precondition("checked", call_id, self._check_required(task))
            return f"{args['user']} cleared"
        if tool == "flash_firmware":
            ok = (
                task.kind == "firmware"
                and args["device"] == task.entity
                and args["version"] == task.fields["version"]
                and (dev.model != "x200" or "backed_up" in done)
                and args["channel"] == dev.channel
            )
            self._goal(ok, call_id, f"flash of {args['device']} failed: image rejected")
            return f"{args['device']} now runs {args['version']}"
        if tool == "reboot_device":
            battery = task.kind == "restart" and dev.power == "battery"
            ok = (
                task.kind == "restart"
                and args["device"] == task.entity
                and args.get("site", task.fields["site"]) == task.fields["site"]
                and (not battery or "notified" in done)
                and args["delay"] == ("scheduled" if battery else "now")
            )
            self._goal(ok, call_id, f"{args['device']} did not come back")
            return f"{args['device']} restarted"
        if tool == "issue_badge":
            who = args.get("holder", args.get("user"))
            ok = (
                task.kind == "badge"
                and args["site"] == task.entity
                and who == task.fields["user"]
                and args["level"] == task.fields["level"]
                and ("checked" in done or not self._check_required(task))
            )
            self._goal(ok, call_id, f"badge at {args['site']} refused")
            return f"{who} holds a {args['level']} badge at {args['site']}"
        if tool == "list_devices":
            return ", ".join(self.devices)
        return f"{tool}: ok"
