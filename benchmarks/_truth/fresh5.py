"""The seventh template set, ``fresh5``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no extraction
rule was tuned on it and no phrasing was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service",
status observations that go stale, repeats, late arrivals, old restatements, distractors); what is
in it is what a personal assistant, a support desk and a coding agent see in one stream. People
are customers and colleagues with a mobile number, a working time zone, a subscription plan and
two addresses that are easily confused (billing and delivery: the look-alike pair). The
"deployments" are the two look-alike branches of a repository (``main`` and ``develop``) with a CI
status (the observation slot), a Docker base image and a required reviewer; the "service" of a
repository is its licence; teams have a weekly sync slot; the "projects" are customer accounts
with an account manager, a renewal date and a support tier.

Statements come as chat turns in the first person ("my new number is …", "scratch that"),
colleagues' third-person reports, Slack-style messages with @mentions and emoji, CRM audit lines
("Field changed: …"), YAML and INI snippets, CSV rows with a header, commit subjects and
changelog bullets, Dockerfile diffs, CODEOWNERS lines, calendar invites, status-page updates,
ticket comments and e-mail subjects; corrections ("sorry, I meant …"); "since WEEKDAY", "from
today" and three more date spellings (``3/4/2027``, ``2027-03-04``, ``Thu 4 Mar 2027``,
``04.03.2027``). Tool results are a CRM webhook with a changed-fields list, a CI API with
name/value attribute records, a repository record under an ``org/name``, a calendar's recurring
event and a search result list. Distractors name the subject and another value without setting
the slot: hedges ("might move to", "considering", "if approved"), questions, negations, a
relative's or a colleague's value, a one-off, a plan for next month. Its random stream is seeded
apart from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh5-2026-12-04-blind"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("mobile", "timezone", "plan", "billing_address", "delivery_address"),
    "deployment": ("status", "base_image", "reviewer"),
    "service": ("license",),
    "team": ("sync_slot",),
    "project": ("account_manager", "renewal_date", "support_tier"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED = ("reviewer", "account_manager")
"""Attributes whose values are the world's people."""
SELF_EXCLUDED: tuple[str, ...] = ()
"""No person-valued attribute of a person in this set."""
SIBLINGS = {"billing_address": "delivery_address", "delivery_address": "billing_address"}
"""Two addresses of one person that look alike (both a street address) but are not the same slot."""
VERSIONED: tuple[str, ...] = ()
DATED = ("renewal_date",)
"""Attributes whose values are future dates."""


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``);
    ``{weekday}`` only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_dow": date.strftime("%a %-d %b %Y"),
            "date_dot": date.strftime("%d.%m.%Y"), "weekday": date.strftime("%A")}


_STREETS = ("Rowan Terrace", "Quarry Lane", "Ashgrove Road", "Belvedere Close", "Cobbler's Row", "Dunmore Street",
            "Elderflower Way", "Foxley Mews", "Garnet Avenue", "Heathcote Drive")
VOCAB = Vocabulary(
    name_pairs=(("Noemi", "Naomi"), ("Imke", "Imka"), ("Bastian", "Sebastian"), ("Alena", "Elena"), ("Kasimir", "Casimir"),
                ("Liesel", "Lisel"), ("Dorota", "Dorotea"), ("Ottavio", "Ottavia"), ("Renata", "Renate"), ("Timo", "Tiemo"),
                ("Yannick", "Yannik"), ("Zuzana", "Susana"), ("Corinna", "Corina"), ("Benedek", "Benedikt"), ("Ismay", "Isla")),
    surnames=("Abernathy", "Bjornsson", "Castellanos", "Dimitrov", "Egbuna", "Fairweather", "Gallardo", "Hollingsworth"),
    cities=("Ljubljana", "Poznan", "Bratislava", "Thessaloniki", "Valencia", "Utrecht", "Freiburg", "Bologna",
            "Nantes", "Tromso", "Vilnius", "Zagreb", "Salzburg", "Lund", "Cardiff", "Aberdeen"),
    employers=(),
    languages=(),
    roles=(),
    services=("parcel-tracker", "invoice-pdf", "helpdesk-widget", "sso-bridge", "csv-importer", "webhook-relay",
              "loyalty-points", "status-badge", "onboarding-flow", "rate-limiter", "search-suggest", "audit-export",
              "push-gateway", "calendar-sync", "price-engine"),
    environments=("main", "develop"),
    service_statuses=("passing", "failing", "flaky", "cancelled", "waiting on a runner"),
    regions=(),
    owner_teams=(),
    teams=("Billing Support", "Onboarding", "Escalations", "Platform Ops", "Mobile Apps", "Data Pipelines",
           "Partner Success", "Docs", "QA Automation", "Security Desk"),
    projects=("Harbourview Dental", "Pinecrest Logistics", "Marlow & Finch", "Quillfeather Books", "Sundial Pharmacy",
              "Tidewater Brewing", "Bellhop Hotels", "Corvina Seafoods", "Driftwood Studios", "Emberline Energy",
              "Fieldstone Farms", "Goldcrest Insurance", "Hollybush Nurseries", "Inkwell Printing", "Juniper Vets",
              "Kingfisher Travel", "Lattice Architects", "Moonrise Bakery", "Nettlebed Schools", "Orchard Lane Clinic"),
    project_statuses=(),
    version_style="semver",
    date_format="%-m/%-d/%Y",
    foods=("banh mi", "shakshuka", "pad see ew", "cevapi", "tamales", "udon"),
    topics=("the hack week", "the support rota swap", "the on-site visit", "the CSAT review", "the laptop refresh",
            "the desk booking tool", "the winter party", "the docs sprint"),
    pools=(
        ("mobile", tuple(f"+44 7700 900{n:03d}" for n in range(104, 900, 41)) + tuple(f"+1 415 555 01{n:02d}" for n in range(3, 99, 7))),
        ("timezone", ("Europe/Lisbon", "Europe/Berlin", "Europe/Helsinki", "America/New_York", "America/Chicago",
                      "America/Los_Angeles", "America/Sao_Paulo", "Asia/Kolkata", "Asia/Singapore", "Asia/Tokyo",
                      "Australia/Sydney", "Africa/Nairobi")),
        ("plan", ("Basic", "Starter", "Plus", "Pro", "Premium", "Business", "Enterprise")),
        # Billing addresses are odd house numbers, delivery even ones: the two pools never share a value.
        ("billing_address", tuple(f"{2 * i + 3} {street}" for i, street in enumerate(_STREETS))
         + tuple(f"Unit {i + 1}, {street}" for i, street in enumerate(_STREETS[:6]))),
        ("delivery_address", tuple(f"{2 * i + 12} {street}" for i, street in enumerate(reversed(_STREETS)))
         + tuple(f"Flat {i + 2}B, {street}" for i, street in enumerate(_STREETS[4:]))),
        ("base_image", ("python:3.12-slim", "python:3.11-bookworm", "node:22-alpine", "node:20-bookworm", "golang:1.23-alpine",
                        "eclipse-temurin:21-jre", "debian:bookworm-slim", "ubuntu:24.04", "alpine:3.20", "rust:1.82-slim")),
        ("license", ("MIT", "Apache-2.0", "BSD-3-Clause", "MPL-2.0", "GPL-3.0-only", "LGPL-2.1-only", "BUSL-1.1", "ISC")),
        ("sync_slot", ("Mondays at 09:30", "Mondays at 14:00", "Tuesdays at 10:00", "Tuesdays at 16:30", "Wednesdays at 11:00",
                       "Thursdays at 09:00", "Thursdays at 15:00", "Fridays at 10:30")),
        ("support_tier", ("Bronze", "Silver", "Gold", "Platinum", "Standard", "Premier")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["mobile"] = {
    "state": ["{s}'s mobile number is {v}.", "Best number for {s}: {v} (mobile).", "Contact card\nName: {s}\nMobile: {v}",
              "name,mobile\n{s},{v}"],
    "change": ["{s} has a new mobile number, {v}; the old {old} is disconnected.",
               "CRM audit: contact {s}, field Mobile changed from {old} to {v}.",
               "@here {s} changed phones 📱 new number is {v}, please don't use {old} any more",
               "Ticket note: caller {s} asked us to update the mobile on file to {v} (was {old})."],
    "first_state": ["You can reach me on {v}.", "My mobile's {v}, text is quickest.", "Call me on {v} if it's urgent.", "WhatsApp works too, same number: {v}."],
    "first_change": ["hey, my number's changed to {v}, please update your contacts!",
                     "New number: {v}. The {old} one is gone, the phone went in the canal 🙃",
                     "Ignore {old}, that SIM is cancelled. I'm on {v} now.",
                     "Scratch the number I gave you before; from today it's {v}."],
    "correction": ["Sorry, I meant {v}, not {old}: that's {s}'s mobile.", "Typo in my last message: {s}'s number is {v}, not {old}.",
                   "Scratch that, {old} was an old number. {s} is on {v}."],
    "as_of": ["Since {weekday}, {s} has been reachable on {v}.", "Contact list export {date_iso}: {s} | mobile {v}",
              "As of {date}, {s}'s mobile number is {v}."],
    "distractor": ["Is {x} still {s}'s number? It went to voicemail.", "{s} gave {x} as their partner's number, for emergencies.",
                   "{s} might get a work phone with {x} if IT approves it.", "{x} called for {s} but it was a wrong number.",
                   "{s} is not switching to {x}, that was the loaner phone."],
    "q_current": ["What is {s}'s mobile number now?"],
    "q_as_of": ["What was {s}'s mobile number on {date}?"],
    "q_history": ["What was {s}'s mobile number before {v}?"],
}
T["timezone"] = {
    "state": ["{s} works on {v} time.", "{s}'s working hours are set to {v}.", "profile:\n  name: {s}\n  tz: {v}",
              "Schedule {s}'s calls in {v} hours."],
    "change": ["{s} relocated and now works in the {v} time zone, no longer {old}.",
               "{s} updated their calendar time zone from {old} to {v}.",
               "Heads-up: {s} is on {v} hours from today, so mornings in {old} won't work.",
               "HR system: {s}, working time zone {old} → {v}."],
    "first_state": ["I'm on {v} time, so keep meetings in my afternoon.", "My calendar's on {v}.", "Heads up for scheduling: I keep {v} hours."],
    "first_change": ["I've moved, I'm on {v} time now 🌍 no more {old} early calls!",
                     "Switched my calendar to {v} this week, {old} is history.",
                     "FYI I'm working from {v} hours from now on."],
    "correction": ["Sorry, wrong zone in the invite: {s} is on {v}, not {old}.", "Correction: {s} works {v} hours, {old} was a mistake.", "Scratch that, {s} is {v}, I mixed them up with {old}."],
    "as_of": ["As of {date}, {s} keeps {v} hours.", "{s} has been on {v} time since {weekday}."],
    "distractor": ["{s} is considering a move to {x} next year.", "{s} has a client in {x}, hence the late calls.",
                   "Would {x} hours work for {s}? Asking for the offsite.", "{s} was in {x} for a conference last week.",
                   "{s} isn't going to {x}; the secondment fell through."],
    "q_current": ["Which time zone does {s} work in now?"],
    "q_as_of": ["Which time zone did {s} work in on {date}?"],
    "q_history": ["Which time zone did {s} work in before {v}?"],
}
T["plan"] = {
    "state": ["{s} is on the {v} plan.", "{s}'s subscription: {v} plan, billed monthly.", "Customer {s} (plan: {v}) opened a chat.",
              "customer,plan\n{s},{v}"],
    "change": ["{s} upgraded from {old} to the {v} plan.", "{s} moved to the {v} plan; the {old} subscription ends today.",
               "Billing webhook summary: {s} subscription changed {old} -> {v}.",
               "🎉 {s} just switched to {v}! (was on {old})"],
    "first_state": ["I'm on the {v} plan, if that matters.", "We pay for {v}, the monthly one.", "Our account is on {v}, I think? Yes, {v}."],
    "first_change": ["I just upgraded to {v}, can you check the invoice?", "Downgraded myself to {v} today, {old} was too pricey.",
                     "Sorry, I meant {v}: I went for {v} in the end, not {old}."],
    "correction": ["Sorry, wrong row: {s} is on {v}, not {old}.", "My mistake earlier: {s} has the {v} plan; {old} was another customer.", "Scratch that: {s} is {v}, the {old} row was a duplicate."],
    "as_of": ["As of {date}, {s} is subscribed to {v}.", "Plan for {s} effective {date_dow}: {v}.", "{s} has been on {v} since {weekday}."],
    "distractor": ["{s} asked what the {x} plan would cost.", "{s} might move to {x} from next month if the budget is approved.",
                   "{s}'s colleague is on the {x} plan.", "{s} was offered a {x} trial but didn't take it.",
                   "{s} is not on {x}, that discount code was for someone else."],
    "q_current": ["Which plan is {s} on now?"],
    "q_as_of": ["Which plan was {s} on as of {date}?"],
    "q_history": ["Which plan was {s} on before {v}?"],
}
T["billing_address"] = {
    "state": ["{s}'s billing address is {v}.", "Invoices for {s} go to {v}.", "[billing]\nname = {s}\naddress = {v}",
              "{s} | billing address | {v}"],
    "change": ["{s} changed their billing address from {old} to {v}.", "Invoices for {s} now go to {v} instead of {old}.",
               "CRM audit: contact {s}, field Billing address changed: {old} → {v}.",
               "Ticket comment: {s} confirmed the new billing address {v}, old one ({old}) removed."],
    "first_state": ["Please send invoices to {v}.", "My billing address is {v}.", "For the VAT invoice use {v}."],
    "first_change": ["I've changed my billing address to {v}, invoices to {old} will bounce.",
                     "Scratch that, bill me at {v}, not {old}.", "New billing address for me: {v}."],
    "correction": ["Sorry, I pasted the wrong one: {s}'s billing address is {v}, not {old}.",
                   "Correction: the invoice address for {s} is {v}; {old} was wrong.", "Scratch that, {old} is where {s} used to bill to. It's {v}."],
    "as_of": ["Effective {date}, {s}'s billing address is {v}.", "Invoices to {s} have gone to {v} since {weekday}.", "Billing profile updated {date_dow}: {s}, {v}."],
    "distractor": ["{s} had one parcel sent to {x} while visiting family.", "Is {x} {s}'s billing address? The card was declined.",
                   "{s} is thinking about using {x} for invoices.", "{s}'s accountant works at {x}.",
                   "{s}'s shipping label said {x}, but that is not where invoices go."],
    "q_current": ["What is {s}'s billing address now?"],
    "q_as_of": ["What was {s}'s billing address on {date}?"],
    "q_history": ["What was {s}'s billing address before {v}?"],
}
T["delivery_address"] = {
    "state": ["{s}'s orders ship to {v}.", "Delivery address for {s}: {v}.", "shipping:\n  recipient: {s}\n  address: {v}",
              "Couriers drop {s}'s parcels at {v}."],
    "change": ["{s} updated the delivery address from {old} to {v}.", "Parcels for {s} go to {v} now, not {old}.",
               "Order system: {s} default shipping address {old} replaced with {v}.",
               "📦 {s} asked us to ship everything to {v} from today (no more {old})."],
    "first_state": ["Ship my stuff to {v}, please.", "Deliveries go to {v}, someone's always in.", "Leave parcels at {v}, with the concierge."],
    "first_change": ["Please send future orders to {v}, I've moved out of {old}.",
                     "Update my delivery address to {v}, I'm no longer at {old}.", "I moved! Deliveries to {v} from now on 🏠"],
    "correction": ["Sorry, I meant {v}, not {old}: that's where {s}'s parcels go.",
                   "Courier note was wrong: {s}'s delivery address is {v}, not {old}.", "Scratch that, ship to {v}; {old} was {s}'s old flat."],
    "as_of": ["As of {date_dot}, {s}'s deliveries go to {v}.", "Since {weekday}, {s}'s orders have shipped to {v}."],
    "distractor": ["{s} sent a gift to {x} for a friend's birthday.", "{s} asked if we deliver to {x}.",
                   "{s} might use {x} for deliveries over the holidays.", "A parcel for {s} was misdelivered to {x}.",
                   "{s} doesn't live at {x}, that's the neighbour."],
    "q_current": ["What is {s}'s delivery address now?"],
    "q_as_of": ["What was {s}'s delivery address on {date}?"],
    "q_history": ["What was {s}'s delivery address before {v}?"],
}
T["status"] = {
    "state": ["CI on the {env} branch of {svc} is {v}.", "Build status for {svc}@{env}: {v}.",
              "{svc} / {env}\nci: {v}", "Checked the pipeline for {svc} ({env} branch) just now: {v}.", "README badge for {svc} ({env}): build | {v}"],
    "change": ["CI for {svc} on {env} went from {old} to {v}.", "[{svc}] {env}: pipeline status changed {old} ➜ {v}",
               "🚦 {svc} {env} branch is {v} now (was {old}).", "Status page update: {svc} builds on {env} are {v}.",
               "Commit status for {svc}@{env}: {old} → {v} after the last push."],
    "correction": ["Sorry, I was looking at the wrong branch: {svc} {env} is {v}, not {old}.",
                   "Scratch that, {svc} on {env} is {v}; the {old} badge was cached.", "Correction from the on-call: {svc} {env} CI is {v}, {old} was a different job."],
    "as_of": ["{date_iso}T09:00Z ci.status repo={svc} ref={env} result=\"{v}\"", "Since {weekday} the {env} branch of {svc} has been {v}.",
              "As of {date}, CI on {svc} ({env}) is {v}."],
    "distractor": ["The {svc} fork on someone's laptop is {x}, not the {env} branch.", "If {svc} {env} goes {x} again, ping me.",
                   "Is {svc} on {env} {x}? The badge looks odd.", "A feature branch of {svc} was {x} this morning."],
    "q_current": ["What is the CI status of the {env} branch of {svc} now?"],
    "q_as_of": ["What was the CI status of the {env} branch of {svc} on {date}?"],
    "q_history": ["What was the CI status of the {env} branch of {svc} before it was {v}?"],
}
T["base_image"] = {
    "state": ["The {env} branch of {svc} builds from {v}.", "{svc} ({env}) Dockerfile: FROM {v}",
              "Base image for {svc} on {env} is {v}.", "ci.yml ({svc}, {env}):\n  image: {v}"],
    "change": ["chore(docker): bump {svc} base image {old} -> {v} on {env}",
               "{svc} @ {env}, Dockerfile diff:\n-FROM {old}\n+FROM {v}",
               "CHANGELOG ({svc}, {env}):\n- Changed: base image is now {v} (was {old}).",
               "Merged: {svc} {env} now builds on {v} instead of {old}.",
               "Subject: [{svc}] Bump base image to {v} on {env}\nReplaces {old}, see the PR for the scan results."],
    "correction": ["Sorry, I meant {v}: the {env} branch of {svc} uses {v}, not {old}.",
                   "Revert note: {svc} {env} is back on {v}; the {old} bump was rolled back.", "Scratch that, {svc} {env} never got {old}; it builds on {v}."],
    "as_of": ["As of {date}, {svc} on {env} builds from {v}.", "Since {weekday} the {env} image of {svc} has been {v}.", "Image audit {date_iso}: {svc}@{env} FROM {v}"],
    "distractor": ["We could try {x} for {svc} on {env} if the tests pass.", "The {svc} dev container uses {x}, not the CI image.",
                   "Renovate opened a PR to move {svc} {env} to {x}; not merged.", "Does {x} work with {svc}? Asking before I try it."],
    "q_current": ["Which base image does the {env} branch of {svc} build from now?"],
    "q_as_of": ["Which base image did the {env} branch of {svc} build from on {date}?"],
    "q_history": ["Which base image did the {env} branch of {svc} build from before {v}?"],
}
T["reviewer"] = {
    "state": ["PRs to {svc} {env} need a review from {v}.", "CODEOWNERS ({svc}, {env}): * @{v}",
              "{v} is the required reviewer on {svc}'s {env} branch.", "Branch protection, {svc}/{env}: required reviewer {v}.", "reviewers:\n  {svc}/{env}: [{v}]"],
    "change": ["{v} replaces {old} as required reviewer for {svc} on {env}.",
               "chore: update CODEOWNERS for {svc} {env}, {old} -> {v}",
               "@{v} you're the reviewer for {svc} {env} now, {old} handed it over 🙏",
               "Branch protection on {svc} ({env}) changed: reviewer {old} removed, {v} added."],
    "correction": ["Sorry, I tagged the wrong person: {svc} {env} reviews go to {v}, not {old}.",
                   "Correction: {v} is the {env} reviewer for {svc}, {old} was never set.", "Scratch that, @{old} isn't on it: {svc} {env} reviewer is {v}."],
    "as_of": ["As of {date}, {v} reviews {svc} changes on {env}.", "{v} has been the {svc} {env} reviewer since {weekday}.", "Branch rules exported {date_dot}: {svc}/{env} review by {v}."],
    "distractor": ["{x} left a drive-by comment on a {svc} PR to {env}.", "Could {x} review {svc} {env} while the reviewer is out?",
                   "{x} approved a {svc} PR on another branch.", "{x} is not a reviewer on {svc}, just watching the repo."],
    "q_current": ["Who is the required reviewer for the {env} branch of {svc} now?"],
    "q_as_of": ["Who was the required reviewer for the {env} branch of {svc} on {date}?"],
    "q_history": ["Who was the required reviewer for the {env} branch of {svc} before {v}?"],
}
T["license"] = {
    "state": ["{svc} is licensed under {v}.", "LICENSE ({svc}): {v}", "package.json of {svc}: \"license\": \"{v}\"",
              "{svc} ships under the {v} licence.", "[metadata]\nname = {svc}\nlicense = {v}"],
    "change": ["{svc} was relicensed from {old} to {v}.", "chore(legal): switch {svc} license {old} -> {v}",
               "CHANGELOG {svc}:\n- Changed: licence is {v} (previously {old}).", "Legal signed off: {svc} moves to {v}, dropping {old}."],
    "correction": ["Sorry, wrong repo: {svc}'s licence is {v}, not {old}.", "The README badge is stale: {svc} is {v}, not {old}.", "Scratch that, {svc} never went {old}; it is {v}."],
    "as_of": ["As of {date}, {svc} is distributed under {v}.", "{svc} has been {v} since {date_dow}.", "SBOM generated {date_iso}: {svc} license {v}"],
    "distractor": ["Legal is considering {x} for {svc}, nothing decided.", "One of {svc}'s dependencies is {x}.",
                   "Can we even ship {svc} with a {x} dependency?", "{svc}'s docs site is {x}, the code isn't."],
    "q_current": ["Which licence is {svc} under now?"],
    "q_as_of": ["Which licence was {svc} under on {date}?"],
    "q_history": ["Which licence was {svc} under before {v}?"],
}
T["sync_slot"] = {
    "state": ["The {team} weekly sync is {v}.", "{team} team sync: {v}, same link as always.",
              "Recurring: {team} weekly sync, {v}", "{team} meet {v} for their weekly sync.", "Calendar: {team} weekly sync, recurring {v}, 30 min."],
    "change": ["Updated invitation: {team} weekly sync moved from {old} to {v}.",
               "We've moved the {team} sync to {v} ({old} clashed with the all-hands).",
               "📅 {team} sync is now {v}, not {old}. Calendar updated.",
               "Invitation: {team} weekly sync @ {v} (this replaces the {old} series)",
               "{team} sync has been rescheduled to {v} going forward; the {old} slot is freed up."],
    "correction": ["Sorry, I meant {v}: the {team} sync is {v}, not {old}.", "Scratch that, {team} still meet {v}; the {old} invite was a draft.", "Correction: {team} sync is {v}; {old} was the old series."],
    "as_of": ["Starting {date}, the {team} weekly sync is {v}.", "{team} have met {v} since {weekday}.",
              "From {date_dow}: {team} sync {v}."],
    "distractor": ["The {team} retro is {x}, the sync hasn't moved.", "{team} might move the sync to {x} if people agree.",
                   "Would {x} work for a one-off {team} planning session?", "The {team} lead has a 1:1 {x}."],
    "q_current": ["When is the {team} weekly sync now?"],
    "q_as_of": ["When was the {team} weekly sync on {date}?"],
    "q_history": ["When was the {team} weekly sync before {v}?"],
}
T["account_manager"] = {
    "state": ["{v} manages the {p} account.", "Account: {p}\nOwner: {v}", "For anything commercial at {p}, talk to {v}.",
              "account,owner\n{p},{v}"],
    "change": ["{p} has a new account manager: {v} takes over from {old}.", "CRM: account {p}, owner changed {old} → {v}.",
               "@{v} you own {p} from today, {old} is handing over the notes 👋",
               "Subject: {p} account handover\n{old} is passing {p} to {v}.", "Handover done ✅ {p} → {v} (from {old})."],
    "correction": ["Sorry, wrong account: {p} is managed by {v}, not {old}.", "Correction: {v} owns {p}; {old} only covered one call.", "Scratch that, {p} sits with {v}, not {old}."],
    "as_of": ["As of {date}, {v} is the account manager for {p}.", "{v} has owned {p} since {weekday}.", "Book of business, {date_dow}: {p}, {v}."],
    "distractor": ["{x} joined the {p} renewal call as a listener.", "If {x} takes {p}, we'd need to rebalance.",
                   "{x} shadowed the {p} onboarding but doesn't own it.", "Did {x} ever talk to {p}? They asked for them."],
    "q_current": ["Who is the account manager for {p} now?"],
    "q_as_of": ["Who was the account manager for {p} on {date}?"],
    "q_history": ["Who was the account manager for {p} before {v}?"],
}
T["renewal_date"] = {
    "state": ["{p} renews on {v}.", "Renewal date for {p}: {v}.", "Contract: {p}\nRenews: {v}", "{p}'s subscription is up for renewal on {v}.", "account,renews_on\n{p},{v}"],
    "change": ["{p}'s renewal moved from {old} to {v}.", "Signed amendment: {p} now renews {v} instead of {old}.",
               "CRM: account {p}, renewal date {old} → {v}.", "Calendar: {p} renewal reminder moved to {v} (was {old}).",
               "Email from {p}: they asked to move the renewal to {v}; approved, {old} no longer applies."],
    "correction": ["Sorry, I meant {v}: {p} renews on {v}, not {old}.", "The deck had the wrong date, {p}'s renewal is {v}, not {old}.", "Scratch that, {p} renews {v}; {old} was the old term."],
    "as_of": ["Pipeline review {date_iso}: {p} renewal {v}.", "As of {date}, {p}'s contract renews on {v}.", "Since {weekday} the CRM has {p} renewing on {v}."],
    "q_current": ["When does {p} renew now?"],
    "q_as_of": ["When was {p} due to renew, as planned on {date}?"],
    "q_history": ["When was {p} due to renew before {v}?"],
}
T["support_tier"] = {
    "state": ["{p} has {v} support.", "Support tier for {p}: {v}.", "{p} is a {v} support customer, so 4-hour response.",
              "sla:\n  account: {p}\n  tier: {v}"],
    "change": ["{p} went from {old} to {v} support.", "{p} upgraded their support to {v}, ending {old}.",
               "Entitlement change: {p} tier {old} → {v}.", "✅ {p} is {v} support from today (no longer {old}).",
               "Subject: {p} support entitlement\nMoved from {old} to {v} effective today."],
    "correction": ["Sorry, wrong customer: {p} is on {v} support, not {old}.", "Correction: {p}'s tier is {v}; {old} was last year's.", "Scratch that, {p} is {v}, {old} was the trial."],
    "as_of": ["As of {date}, {p} is on {v} support.", "{p} has had {v} support since {weekday}.", "SLA register {date_dot}: {p}, tier {v}."],
    "distractor": ["{p} asked for a quote for {x} support.", "{p} might go {x} if the renewal is approved.",
                   "Is {p} still {x}? Their ticket had the wrong SLA.", "{p} is not {x}, that was their parent company."],
    "q_current": ["Which support tier is {p} on now?"],
    "q_as_of": ["Which support tier was {p} on as of {date}?"],
    "q_history": ["Which support tier was {p} on before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # A CRM webhook with a changed-fields list, a CI API with name/value attribute records, a
    # repository record under an org/name, a calendar's recurring event and a search result list.
    "person": ("crm.contact_updated", {"event": "contact.updated", "contact": {"display_name": "{s}"},
                                       "changed_fields": ["{key}"], "current": {"{key}": "{v}"}}),
    "deployment": ("ci.branch_info", {"repo": "{svc}", "ref": "{env}", "attributes": [{"name": "{key}", "value": "{v}"}]}),
    "service": ("scm.get_repo", {"repository": {"full_name": "acme/{svc}", "{key}": "{v}"}}),
    "team": ("calendar.recurring_event", {"calendar": "{team}", "event": {"title": "{team} weekly sync", "{key}": "{v}"}}),
    "project": ("crm.search_accounts", {"total": 1, "results": [{"account_name": "{p}", "{key}": "{v}"}]}),
}
TOOL_STAMP = ("as_of", "%Y-%m-%dT%H:%M:%S+00:00")
JSON_KEYS = {"mobile": "mobile_phone", "timezone": "time_zone", "plan": "subscription_plan", "billing_address": "billing_address",
             "delivery_address": "shipping_address", "status": "ci_status", "base_image": "docker_base_image",
             "reviewer": "required_reviewer", "license": "spdx_license", "sync_slot": "recurrence",
             "account_manager": "account_owner", "renewal_date": "renewal_date", "support_tier": "support_tier"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "{name} is bringing {food} to the support huddle on {weekday}.",
        "Can someone cover my queue for {n} minutes? Back by {time}.",
        "@{name} thanks for jumping on that escalation 🙌",
        "{name} posted the slides for {topic}, they're pinned in the channel.",
        "Reminder: {topic} sign-ups close {weekday}.",
        "The VPN is slow again, {n} seconds to load the CRM.",
        "{name} just got back from {city}, says the {weather} was brutal.",
        "Anyone know why the coffee machine shows error E{n}?",
        "{name} hit {n2} tickets closed this week, nice 🔥",
        "Lunch poll for {weekday}: {food} or something else?",
        "{name} will demo {topic} at {time}, grab a seat.",
        "Does anyone have a spare USB-C charger near desk {n}?",
        "{name} is out {weekday}, dentist at {time}.",
    ],
    "tool": [
        '{{"weather": {{"city": "{city}", "temp_c": {n}, "summary": "{weather}"}}}}',
        '{{"queue_stats": {{"open": {n}, "breached": {n2}, "day": "{weekday}"}}}}',
        '{{"event": "deploy.preview", "pr": {n}{n2}, "author": "{name}", "state": "ready"}}',
        '{{"room": "Huddle {n}", "booked_by": "{name}", "from": "{time}", "topic": "{topic}"}}',
    ],
    "tool_names": ["weather.lookup", "helpdesk.queue_stats", "ci.preview_deploy", "rooms.booking"],
}

REPORTERS = (("Yevgenia", "user:yevgenia.support"), ("Tomasz", "user:tomasz.devops"), ("Adaeze", "user:adaeze.accounts"))
LOW_TRUST = (("document", "doc:crm-export-2025.csv"), ("document", "doc:repo-readme-snapshot.md"), ("peer", "agent:ticket-summarizer"))
