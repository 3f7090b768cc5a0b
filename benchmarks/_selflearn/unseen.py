"""The UNSEEN world ("courier") of ``benchmarks/self_learning.py``: written after the engine's
plan learning and recovery were tuned (on "ops", with "heldout" and "fresh" read while tuning),
and run only to be reported. Its tools, task kinds, entities and hidden rules differ from the
other three worlds.

A parcel courier. Three task kinds over 12 customers and 8 depots:

* "ship parcel P for customer C to depot D" -> ``book_shipment(parcel, depot, service)``: the
  ``service`` that works is a hidden per-customer constant ("ground", "express" or "freight"),
  NOT in the task. **Entity-specific rule**: customers in the ``chemicals`` sector need
  ``declare_dangerous_goods(parcel)`` first (the sector is in the task's attributes).
* "refund order O of customer C" -> ``issue_refund(order, method)``: ``method`` is "card" for
  retail customers and "store_credit" for wholesale ones (the segment is in the attributes);
  wholesale refunds need ``get_manager_signoff(customer)`` first.
* "close depot D for the night" -> ``close_depot(depot, mode)``: depots tagged ``cold_chain``
  need ``check_freezers(depot)`` first and ``mode`` "staffed"; the others ``mode`` "locked".
  After the **hidden-rule change** every depot also needs ``log_cash_count(depot)`` first.

Distractors: ``track_parcel`` and ``list_depots`` (read-only), ``send_sms`` (a write that never
matters). ``declare_dangerous_goods``, ``get_manager_signoff`` and ``check_freezers`` fail
transiently (timeouts, 429 rate limits).

**Tool-schema changes mid-run:** at 30 % ``book_shipment``'s ``depot`` is renamed
``destination``; at 55 % ``issue_refund``'s ``order`` is renamed ``order_id``. At 70 % the hidden
rule changes (above).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from _selflearn.world import Param, Task, Tool, World

CUSTOMERS = [
    ("acme-chem", "chemicals", "wholesale"), ("bloom-florist", "retail", "retail"),
    ("corvid-labs", "chemicals", "retail"), ("delta-foods", "food", "wholesale"),
    ("ember-books", "retail", "retail"), ("fjord-paints", "chemicals", "wholesale"),
    ("gale-sports", "retail", "wholesale"), ("harbor-pharma", "chemicals", "retail"),
    ("iris-optics", "retail", "retail"), ("juniper-farm", "food", "retail"),
    ("kestrel-tools", "industrial", "wholesale"), ("lumen-lamps", "industrial", "retail"),
]  # fmt: skip
DEPOTS = ["north", "south", "east", "west", "airport", "harbour", "central", "ridge"]
SERVICES = ("ground", "express", "freight")
METHODS = ("card", "store_credit")
MODES = ("staffed", "locked")


@dataclass(frozen=True)
class Customer:
    sector: str
    segment: str
    service: str


class CourierWorld(World):
    """The unseen world (see the module docstring)."""

    name = "unseen"
    CHANGES: ClassVar[dict[str, tuple[str, float]]] = {
        "schema: book_shipment.depot renamed destination": ("schema", 0.30),
        "schema: issue_refund.order renamed order_id": ("schema", 0.55),
        "rule: every depot needs a cash count before closing": ("rule", 0.70),
    }
    GOALS: ClassVar[dict[str, str]] = {
        "ship": "book_shipment",
        "refund": "issue_refund",
        "close": "close_depot",
    }
    DEPOT_RENAME, ORDER_RENAME, RULE = CHANGES

    def _setup(self) -> None:
        rng = self.rng
        n = max(3, min(len(CUSTOMERS), self.config.entities * 3 // 4))
        self.customers = {
            name: Customer(sector, segment, rng.choice(SERVICES)) for name, sector, segment in CUSTOMERS[:n]
        }
        self.cold_chain = {depot: rng.random() < 0.4 for depot in DEPOTS}

    def tasks(self) -> list[Task]:
        rng, out = self._task_rng, []
        for number in range(self.config.episodes):
            roll = rng.random()
            if roll < 0.45:
                c = rng.choice(list(self.customers))
                depot, parcel = rng.choice(DEPOTS), f"P{10000 + number}"
                customer = self.customers[c]
                out.append(
                    Task("ship", c, f"ship parcel {parcel} for customer {c} to depot {depot}",
                         {"parcel": parcel, "customer": c, "depot": depot}, (customer.sector,),
                         {"sector": customer.sector, "segment": customer.segment})
                )  # fmt: skip
            elif roll < 0.75:
                c = rng.choice(list(self.customers))
                order, customer = f"O-{rng.randrange(1000, 9999)}", self.customers[c]
                out.append(
                    Task("refund", c, f"refund order {order} of customer {c}",
                         {"order": order, "customer": c}, (customer.segment,),
                         {"sector": customer.sector, "segment": customer.segment})
                )  # fmt: skip
            else:
                depot = rng.choice(DEPOTS)
                tags = ("cold_chain",) if self.cold_chain[depot] else ()
                out.append(
                    Task("close", depot, f"close depot {depot} for the night", {"depot": depot}, tags,
                         {"cold_chain": self.cold_chain[depot]})
                )  # fmt: skip
        return out

    def current_tools(self) -> list[Tool]:
        depot = "destination" if self.changed(self.DEPOT_RENAME) else "depot"
        order = "order_id" if self.changed(self.ORDER_RENAME) else "order"
        return [
            Tool("declare_dangerous_goods", "File a dangerous-goods declaration for a parcel.", (Param("parcel"),)),
            Tool("get_manager_signoff", "Ask an account manager to approve an action for a customer.",
                 (Param("customer"),)),
            Tool("check_freezers", "Inspect a depot's cold storage.", (Param("depot"),)),
            Tool("log_cash_count", "Record the day's cash count at a depot.", (Param("depot"),)),
            Tool("send_sms", "Text a customer.", (Param("customer"), Param("message"))),
            Tool("track_parcel", "Where a parcel is now.", (Param("parcel"),), read_only=True),
            Tool("list_depots", "The courier's depots.", (), read_only=True),
            Tool("book_shipment", "Book a parcel onto a delivery service.",
                 (Param("parcel"), Param(depot), Param("service", enum=SERVICES))),
            Tool("issue_refund", "Refund a customer's order.", (Param(order), Param("method", enum=METHODS))),
            Tool("close_depot", "Close a depot at the end of the day.", (Param("depot"), Param("mode", enum=MODES))),
        ]  # fmt: skip

    def _run(self, tool: str, args: dict[str, Any], call_id: str) -> str:
        task, done = self.state.task, self.state.done
        customer = self.customers.get(task.entity)
        if tool == "declare_dangerous_goods":
            self._flake("customs portal")
            if task.kind == "ship" and args["parcel"] == task.fields["parcel"]:
                self._precondition("declared", call_id, customer.sector == "chemicals")
            return f"declaration filed for {args['parcel']}"
        if tool == "get_manager_signoff":
            self._flake("approvals service")
            if task.kind == "refund" and args["customer"] == task.entity:
                self._precondition("signed_off", call_id, customer.segment == "wholesale")
            return f"manager approved for {args['customer']}"
        if tool == "check_freezers":
            self._flake("sensor gateway")
            if task.kind == "close" and args["depot"] == task.entity:
                self._precondition("freezers", call_id, self.cold_chain[task.entity])
            return f"freezers at {args['depot']} within range"
        if tool == "log_cash_count":
            if task.kind == "close" and args["depot"] == task.entity:
                self._precondition("cash", call_id, self.changed(self.RULE))
            return f"cash count logged at {args['depot']}"
        if tool == "book_shipment":
            destination = args.get("destination", args.get("depot"))
            ok = (
                task.kind == "ship"
                and args["parcel"] == task.fields["parcel"]
                and destination == task.fields["depot"]
                and args["service"] == customer.service
                and (customer.sector != "chemicals" or "declared" in done)
            )
            self._goal(ok, call_id, f"booking of {args['parcel']} rejected")
            return f"{args['parcel']} booked {args['service']} to {destination}"
        if tool == "issue_refund":
            order = args.get("order_id", args.get("order"))
            wholesale = customer is not None and customer.segment == "wholesale"
            ok = (
                task.kind == "refund"
                and order == task.fields["order"]
                and args["method"] == ("store_credit" if wholesale else "card")
                and (not wholesale or "signed_off" in done)
            )
            self._goal(ok, call_id, f"refund of {order} declined")
            return f"order {order} refunded by {args['method']}"
        if tool == "close_depot":
            cold = task.kind == "close" and self.cold_chain[task.entity]
            ok = (
                task.kind == "close"
                and args["depot"] == task.entity
                and args["mode"] == ("staffed" if cold else "locked")
                and (not cold or "freezers" in done)
                and (not self.changed(self.RULE) or "cash" in done)
            )
            self._goal(ok, call_id, f"depot {args['depot']} could not be closed")
            return f"depot {args['depot']} closed ({args['mode']})"
        if tool == "list_depots":
            return ", ".join(DEPOTS)
        return f"{tool}: ok"
