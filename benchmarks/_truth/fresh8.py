"""The tenth template set, ``fresh8``: a blind world written from the benchmark alone (``truth.py``
and ``_truth/``), never the engine, its rules, its tests, its docs or its scores, so no phrasing
was picked for how it would score.

The machinery is the world's (five entity kinds, two look-alike "deployments" per "service", a
status observation that goes stale, repeats, late arrivals, old restatements, distractors); what
is in it is a hospital's stream, as a ward manager's, a rota coordinator's or a medical
engineering (EBME) assistant sees it. People are resident doctors with a ward placement, a rota
pattern, a personal bleep number and two supervising consultants who are easily confused (the
clinical supervisor and the educational supervisor: the look-alike pair, drawn from two pools
of look-alike surnames, "Dr Hayes" beside "Dr Haynes"). The "deployments" are medical devices on
the two look-alike wards of one floor (the bladder scanner on Ward 7A and the one on Ward 7B)
with a status (the observation slot), a software version and the date their next planned
maintenance is due; the "service" of a device type is the vendor that supplies it; teams are
hospital-wide teams (Critical Care Outreach, Hospital at Night) with a bleep, extension or mobile
number; the "projects" are outpatient clinics (some with look-alike names: Diabetic Foot Clinic,
Diabetic Eye Clinic) with a start time, a room and a lead clinician.

Statements come as doctors' first-person chat ("I've been moved to …", "bleep me on …"), ward
sisters' and coordinators' third-person notes, handover lists, medical staffing e-mails with a
subject and a sign-off, eRoster and switchboard notices, EBME job updates, EHR-style audit lines
("20270304 ES_ALLOC trainee=… es=…"), CSV rows with a header (values quoted when they hold a
comma), INI snippets, "Key: value" cards, pipe tables, corrections ("Correction: … not …",
"Sorry, I meant …", "ignore my last message, …", "Oops, typo") and "as of"/"effective"/"w.e.f."
forms. Dates are written ``04-03-2027`` and also ``4/3/27`` (notes), ``20270304`` (audit lines),
``4 Mar`` (rota, no year), ``2027-03-04`` and "since Thursday". Tool results are a FHIR-like
PractitionerRole with an extension list, an EBME asset lookup, a supplies contract search, a
switchboard directory search and an outpatient clinic template. Distractors name the subject and
another value without setting the slot: temporary cover (a weekend on another ward, a borrowed
bleep, a consultant covering supervision during leave, a loan device, a borrowed clinic room), a
transfer applied for, a demo from another vendor, a partner's or a friend's value, questions and
negations. Its random stream is seeded apart from the other sets (``SEED_SALT``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from _truth.vocab import Vocabulary

SEED_SALT = "fresh8-2026-12-05-blind-hospital"

SCHEMA: dict[str, tuple[str, ...]] = {
    "person": ("placement", "rota", "bleep", "clinical_supervisor", "educational_supervisor"),
    "deployment": ("status", "software", "service_due"),
    "service": ("vendor",),
    "team": ("contact",),
    "project": ("start_time", "room", "lead_clinician"),
}
ATTRIBUTES: dict[str, str] = {a: kind for kind, attributes in SCHEMA.items() for a in attributes}

PERSON_VALUED: tuple[str, ...] = ()
"""Supervisors and clinic leads are consultants and nurse specialists from pools of their own, not
the world's people (who are resident doctors)."""
SELF_EXCLUDED: tuple[str, ...] = ()
SIBLINGS = {"clinical_supervisor": "educational_supervisor", "educational_supervisor": "clinical_supervisor"}
"""A doctor's clinical and educational supervisors look alike ("Dr Hayes" / "Dr Haynes") but are not the same slot."""
VERSIONED = ("software",)
"""Device software versions, spelled as calendar versions ("2026.14")."""
DATED = ("service_due",)
"""Attributes whose values are future dates."""


def date_fields(date: datetime) -> dict[str, str]:
    """The same day in the other spellings this set uses (``{date}`` is ``VOCAB.date_format``,
    ``04-03-2027``); ``{weekday}`` only where a statement is said within the three days after the date."""
    return {"date_iso": date.strftime("%Y-%m-%d"), "date_short": date.strftime("%-d/%-m/%y"),
            "date_compact": date.strftime("%Y%m%d"), "date_dm": date.strftime("%-d %b"), "weekday": date.strftime("%A")}


VOCAB = Vocabulary(
    name_pairs=(("Aisling", "Ashling"), ("Rohan", "Rohit"), ("Femi", "Femke"), ("Anjali", "Anjana"), ("Tobias", "Tobiah"),
                ("Marianne", "Marian"), ("Imogen", "Imogene"), ("Ciaran", "Kieran"), ("Bethan", "Bethany"), ("Eilidh", "Eilish"),
                ("Thandiwe", "Thandeka"), ("Chidi", "Chidera"), ("Keziah", "Kezia"), ("Sunita", "Sunitha"), ("Orla", "Orly")),
    surnames=("Dunleavy", "Oyinlola", "Ramaswamy", "Sorensen", "Takahashi", "Villanueva", "Whitlock", "Zielinski"),
    cities=("Harrogate", "Kettering", "Bridgwater", "Stafford", "Carmarthen", "Macclesfield", "Dumfries", "Lowestoft",
            "Barnstaple", "Darlington", "Shrewsbury", "Chichester", "Wigan", "Banbury", "Falkirk", "Llandudno"),
    employers=(),
    languages=(),
    roles=(),
    services=("bladder scanner", "infusion pump", "syringe driver", "cardiac monitor", "ECG machine", "blood gas analyser",
              "defibrillator", "enteral feeding pump", "vital signs monitor", "NIV machine", "PCA pump", "bed-exit alarm",
              "air mattress pump", "handheld Doppler", "point-of-care glucose meter"),
    environments=("Ward 7A", "Ward 7B"),
    service_statuses=("working", "faulty", "with EBME", "awaiting decontamination", "condemned"),
    regions=(),
    owner_teams=(),
    # Named the way the hospital says them ("bleep Outreach", "Acute Pain can be reached on ..."), without an article.
    teams=("Critical Care Outreach", "Hospital at Night", "Acute Pain", "Palliative Care", "Tissue Viability",
           "Diabetes Specialist Nursing", "IV Access", "Stroke Thrombolysis", "Discharge Liaison", "Phlebotomy"),
    projects=("Diabetic Foot Clinic", "Diabetic Eye Clinic", "Heart Failure Clinic", "Heart Valve Clinic", "Adult Asthma Clinic",
              "Paediatric Asthma Clinic", "Fracture Clinic", "Hand Clinic", "Anticoagulation Clinic", "TIA Clinic",
              "Rapid Access Chest Pain Clinic", "Pre-op Assessment Clinic", "Memory Clinic", "Falls Clinic", "Leg Ulcer Clinic",
              "Lymphoedema Clinic", "Gastro Follow-up Clinic", "IBD Nurse Clinic", "Breast One-Stop Clinic", "Sickle Cell Review Clinic"),
    project_statuses=(),
    version_style="calver",
    date_format="%d-%m-%Y",
    foods=("toast", "shepherd's pie", "chilli con carne", "sausage rolls", "veggie curry", "tomato soup"),
    topics=("the sepsis study day", "the fire safety update", "the new e-learning module", "the ward Christmas do",
            "the flu jab clinic", "the rota meeting", "the staff survey", "the simulation session"),
    pools=(
        # Placements never include Ward 7A or 7B (the devices' wards).
        ("placement", ("Ward 12 (Gastro)", "Ward 4 (Care of the Elderly)", "Ward 9 (Respiratory)", "Ward 21 (Vascular)",
                       "Ward 3 (Stroke)", "Ward 17 (T&O)", "Ward 6 (Cardiology)", "Ward 14 (Renal)", "Ward 10 (General Surgery)",
                       "AMU")),
        ("rota", ("long days (08:00-20:30)", "nights (20:00-08:30)", "standard days (08:00-16:30)", "twilights (14:00-22:00)",
                  "LTFT 60%, Mon-Wed", "LTFT 80%, no Fridays", "1-in-4 weekends", "1-in-6 on-call", "acute take days")),
        ("bleep", ("2213", "2217", "2240", "2268", "2271", "2305", "2319", "2344", "2388", "2391")),
        # Clinical and educational supervisors come from two disjoint pools of look-alike surnames.
        ("clinical_supervisor", ("Dr Hayes", "Dr Adeyemi", "Dr Brannigan", "Dr Choudhury", "Dr Fairweather", "Dr Ionescu",
                                 "Dr Kaplan", "Dr Mbatha", "Dr Rowntree", "Dr Szymanski")),
        ("educational_supervisor", ("Dr Haynes", "Dr Adebayo", "Dr Branagh", "Dr Chowdhury", "Dr Fairbairn", "Dr Ionita",
                                    "Dr Kapoor", "Dr Mabaso", "Dr Rowland", "Dr Szymczak")),
        ("vendor", ("Medira Systems", "Corvane Medical", "Halden Healthcare", "Brightwell Biomedical", "Oakline Clinical",
                    "Tessaly Devices", "Norvik Medical", "Pellan Diagnostics")),
        ("contact", ("bleep 1402", "bleep 1466", "bleep 1519", "bleep 1588", "ext 4471", "ext 4480", "ext 5023", "ext 5067",
                     "07700 900412")),
        ("start_time", ("8.30am", "9am", "9.15am", "9.30am", "10am", "1pm", "1.30pm", "2pm")),
        ("room", ("OPD 1, room 4", "OPD 1, room 7", "OPD 2, room 12", "OPD 3, room 2", "Fracture Clinic room B",
                  "the Day Unit consulting room", "Treatment Centre room 9", "Eye Unit room 5", "Cedar Suite room 3")),
        ("lead_clinician", ("Mr Oyelaran", "Ms Whitcombe", "Dr Tremayne", "Sister Doherty", "Dr Petrakis", "Mr Galloway",
                            "Dr Nakagawa", "Ms Abernethy", "Dr Solberg", "Sister Quinlan")),
    ),
)

T: dict[str, dict[str, list[str]]] = {}
T["placement"] = {
    "state": ["{s} is on {v}.", "Ward doctors\n{v}: {s}", "Placement,Doctor\n\"{v}\",{s}",
              "{s} is the resident doctor on {v} at the moment, bleep them there.",
              "Hi all,\n\nPlease direct ward queries for {v} to {s}, who is the doctor there this rotation.\n\nMedical Staffing"],
    "change": ["{s} has rotated from {old} to {v}.", "Rotation update: {s} leaves {old} and starts on {v}.",
               "{s} is on {v} now, not {old} - can someone update the whiteboard?",
               "Subject: Rotation change - {s}\n\nDear colleagues,\n\n{s} has moved from {old} to {v}. The ward rota has been updated.\n\nMedical Staffing Office"],
    "first_state": ["I'm on {v} at the moment.", "im the doc on {v} if anyone needs me", "I'm working on {v} this rotation."],
    "first_change": ["I've been moved to {v}, finally off {old}.", "new rotation: i'm on {v} now (was {old})",
                     "Just started on {v}. If you need something on {old}, it's not me any more."],
    "correction": ["Correction: {s} is on {v}, not {old}.", "Sorry, I meant {s} is on {v}; {old} was their last rotation.",
                   "Ignore my last message, {s}'s ward is {v} (not {old})."],
    "as_of": ["Effective {date}, {s} is placed on {v}.", "From {date_short}: {s} -> {v}", "{date_compact} STAFF_ASSIGN user={s} ward=\"{v}\""],
    "distractor": ["{s} is covering {x} this weekend only, back on their own ward on Monday.",
                   "{s} asked whether they could swap to {x} next rotation.", "Is {s} on {x}? Their name's still on the board there.",
                   "{s}'s partner works on {x} as a staff nurse.", "{s} isn't on {x}, whatever the old rota says."],
    "q_current": ["Which ward is {s} placed on now?"],
    "q_as_of": ["Which ward was {s} placed on as of {date}?"],
    "q_history": ["Which ward was {s} placed on before {v}?"],
}
T["rota"] = {
    "state": ["{s} is working {v}.", "Rota: {s} / {v}", "Name,Pattern\n{s},\"{v}\"", "{s}'s pattern for this block is {v}.",
              "[rota]\nname = {s}\npattern = {v}"],
    "change": ["{s} has come off {old} and is on {v} now.", "Rota swap agreed: {s} moves from {old} to {v}.",
               "eRoster change - {s}: pattern {old} replaced by {v} (approved by the rota coordinator)."],
    "first_state": ["I work {v}.", "my rota is {v}, so please don't put me down for anything else", "I'm on {v} this block."],
    "first_change": ["Swapped onto {v}, no more {old} for me.", "rota's changed, im on {v} now instead of {old}",
                     "They've put me on {v}; {old} finished last week."],
    "correction": ["Correction: {s} is rostered on {v}, not {old}.", "Sorry, I meant {s} is on {v} - {old} is someone else's pattern."],
    "as_of": ["As of {date}, {s} is rostered on {v}.", "w.e.f. {date_dm}: {s} on {v}", "Rota effective {date_short} - {s}: {v}"],
    "distractor": ["{s} did one week of {x} to cover sickness, then went back to normal.",
                   "{s} has applied to go onto {x}; HR haven't replied yet.", "Would {s} consider {x} if we're short next month?",
                   "{s}'s housemate is on {x}, so they share lifts.", "{s} is not on {x}, that was last year's rota."],
    "q_current": ["What rota pattern does {s} work now?"],
    "q_as_of": ["What rota pattern did {s} work on {date}?"],
    "q_history": ["What rota pattern did {s} work before {v}?"],
}
T["bleep"] = {
    "state": ["{s}'s bleep is {v}.", "Bleep {v} - {s}", "To reach {s}, bleep {v}.", "Name | Bleep\n{s} | {v}",
              "Contact card\nName: {s}\nBleep: {v}"],
    "change": ["{s} has a new bleep: {v} (the old {old} has been handed back).", "{s}'s bleep changed from {old} to {v}.",
               "Switchboard note: {s} is now on {v}, please stop using {old}."],
    "first_state": ["My bleep's {v}.", "bleep me on {v}", "I'm on {v} if you need me."],
    "first_change": ["New bleep, it's {v} now - {old} went through the washing machine.", "my bleep is {v} now not {old}",
                     "Heads up, I've swapped bleeps: {v} from today, {old} is dead."],
    "correction": ["Correction: {s}'s bleep is {v}, not {old}.", "Oops, typo: bleep {v} for {s}, not {old}.",
                   "ignore my last message, {s}'s bleep is {v}"],
    "as_of": ["As of {date}, {s} carries bleep {v}.", "{date_compact} DEVICE_ISSUE bleep={v} holder={s}",
              "{s} has been on bleep {v} since {weekday}."],
    "distractor": ["{s} is holding {x} today while the registrar is in theatre.",
                   "Can someone bleep {s}? I tried {x} but I think it's the wrong number.",
                   "{s} borrowed {x} for the night shift, theirs had a flat battery.", "{x} isn't {s}'s bleep, it's the ward phone."],
    "q_current": ["What is {s}'s bleep number now?"],
    "q_as_of": ["What was {s}'s bleep number on {date}?"],
    "q_history": ["What was {s}'s bleep number before {v}?"],
}
T["clinical_supervisor"] = {
    "state": ["{s}'s clinical supervisor is {v}.", "{v} is clinical supervisor for {s}.", "Trainee: {s}\nClinical supervisor: {v}",
              "{s} meets {v} for clinical supervision every other week."],
    "change": ["{s} has a new clinical supervisor, {v}, taking over from {old}.", "Clinical supervisor for {s} changed: {old} -> {v}.",
               "{old} has handed {s}'s clinical supervision over to {v}."],
    "first_state": ["My clinical supervisor is {v}.", "{v} is my CS", "I have clinical supervision with {v}."],
    "first_change": ["I've got a new clinical supervisor: {v}. {old} has gone on sabbatical.", "my CS is {v} now, not {old}",
                     "Switched clinical supervisor to {v} ({old} had too many trainees)."],
    "correction": ["Correction: {s}'s clinical supervisor is {v}, not {old}.",
                   "Sorry, I meant {v} is {s}'s clinical supervisor; {old} was their last one."],
    "as_of": ["As of {date}, {s}'s clinical supervisor is {v}.", "Portfolio update {date_iso}: clinical supervisor for {s} = {v}",
              "From {date_short} {v} supervises {s} clinically."],
    "distractor": ["{x} signed off one of {s}'s procedures, just as a favour.", "{s} asked {x} to be their clinical supervisor next year.",
                   "Is {x} {s}'s clinical supervisor? Not sure.",
                   "{x} is covering clinical supervision for {s} while their supervisor is on leave.",
                   "{x} is not {s}'s clinical supervisor, they only did the induction."],
    "q_current": ["Who is {s}'s clinical supervisor now?"],
    "q_as_of": ["Who was {s}'s clinical supervisor on {date}?"],
    "q_history": ["Who was {s}'s clinical supervisor before {v}?"],
}
T["educational_supervisor"] = {
    "state": ["{s}'s educational supervisor is {v}.", "ES for {s}: {v}", "{s} has their educational supervisor meetings with {v}.",
              "Trainee,Educational supervisor\n{s},{v}"],
    "change": ["{s}'s educational supervisor has changed from {old} to {v}.",
               "Deanery confirmed: {v} replaces {old} as educational supervisor for {s}.",
               "{s} is with {v} for educational supervision now; {old} has stepped down."],
    "first_state": ["My educational supervisor is {v}.", "{v} is my ES, we meet every term", "I do my educational supervision with {v}."],
    "first_change": ["I've been given a new educational supervisor, {v}, instead of {old}.", "ES changed to {v}, bye {old}",
                     "Just had my first meeting with {v}, my new educational supervisor (replacing {old})."],
    "correction": ["Correction: {s}'s educational supervisor is {v}, not {old}.",
                   "Sorry, I meant {v} is {s}'s educational supervisor, not {old}."],
    "as_of": ["As of {date}, {s}'s educational supervisor is {v}.", "Effective {date}: educational supervisor for {s} is {v}.",
              "{date_compact} ES_ALLOC trainee={s} es=\"{v}\""],
    "distractor": ["{x} is doing {s}'s ARCP paperwork this once because their ES is away.",
                   "{s} would like {x} as educational supervisor when they rotate.",
                   "Has {x} taken over as {s}'s ES? Someone said so at teaching.",
                   "{s}'s friend has {x} as their educational supervisor.", "{x} isn't {s}'s educational supervisor."],
    "q_current": ["Who is {s}'s educational supervisor now?"],
    "q_as_of": ["Who was {s}'s educational supervisor on {date}?"],
    "q_history": ["Who was {s}'s educational supervisor before {v}?"],
}
T["status"] = {
    "state": ["The {svc} on {env} is {v}.", "{env} {svc}: {v}", "Equipment check, {env}: {svc} - {v}.",
              "Checked the {svc} on {env} this morning, it's {v}.", '{{"device": "{svc}", "ward": "{env}", "condition": "{v}"}}'],
    "change": ["The {env} {svc} has gone from {old} to {v}.", "EBME job updated: {svc} ({env}) now {v}, was {old}.",
               "Update on the {svc} on {env}: it's {v} now.", "NIC {env}: {svc} {old} -> {v}"],
    "correction": ["Correction: the {svc} on {env} is {v}, not {old} - I was looking at the other ward's.",
                   "Sorry, my mistake: {env}'s {svc} is {v}, not {old}."],
    "as_of": ["As of {date}, the {svc} on {env} is {v}.", "{date_compact} ASSET {env}/{svc} status=\"{v}\"",
              "The {env} {svc} has been {v} since {weekday}."],
    "distractor": ["If the {env} {svc} ends up {x} again, borrow one from theatres.", "Is the {svc} on {env} {x}? There's a label on it.",
                   "The loan {svc} from the equipment library was {x} when it arrived.", "The {svc} on Ward 8 is {x}, not ours on {env}."],
    "q_current": ["What is the status of the {svc} on {env} now?"],
    "q_as_of": ["What was the status of the {svc} on {env} on {date}?"],
    "q_history": ["What was the status of the {svc} on {env} before it was {v}?"],
}
T["software"] = {
    "state": ["The {env} {svc} is running software {v}.", "{svc} ({env}) - sw {v}", "Software on the {svc} on {env}: version {v}.",
              "Asset label check, {env} {svc}: software {v}."],
    "change": ["EBME updated the {env} {svc} from {old} to {v}.", "The {svc} on {env} was upgraded to {v} (previously {old}).",
               "Software update done on the {env} {svc}: {old} -> {v}."],
    "correction": ["Correction: the {env} {svc} is on {v}, not {old}.", "Sorry, I meant {v} - the {svc} on {env} isn't on {old} any more."],
    "as_of": ["As of {date}, the {svc} on {env} runs software {v}.", "{date_compact} ASSET {env}/{svc} sw_version={v}"],
    "q_current": ["Which software version is the {svc} on {env} running now?"],
    "q_as_of": ["Which software version was the {svc} on {env} running on {date}?"],
    "q_history": ["Which software version was the {svc} on {env} running before {v}?"],
}
T["service_due"] = {
    "state": ["The {env} {svc} is next due for planned maintenance on {v}.", "PPM due {v} - {svc}, {env}",
              "Sticker on the {env} {svc} says next service {v}.", "{svc} ({env})\nNext PPM: {v}"],
    "change": ["The {env} {svc}'s service has been rebooked from {old} to {v}.", "EBME moved the PPM for the {svc} on {env}: {old} -> {v}.",
               "Hi,\n\nThe engineer can't make {old}, so the {svc} on {env} will be serviced on {v} instead.\n\nThanks,\nEBME Helpdesk"],
    "correction": ["Correction: the {env} {svc} is due its service on {v}, not {old}.", "Sorry, {v} for the {svc} on {env}; {old} was a typo."],
    "as_of": ["As of {date}, the {svc} on {env} is next due for service on {v}.", "PPM schedule export {date_iso}: {env} {svc} due {v}"],
    "q_current": ["When is the {svc} on {env} next due for planned maintenance?"],
    "q_as_of": ["When was the {svc} on {env} next due for planned maintenance, as known on {date}?"],
    "q_history": ["When was the {svc} on {env} due for planned maintenance before {v}?"],
}
T["vendor"] = {
    "state": ["Our {svc}s are supplied by {v}.", "{svc}s: {v} (framework supplier)", "For {svc} consumables and repairs, contact {v}.",
              "Category | Supplier\n{svc} | {v}"],
    "change": ["We've switched {svc} supplier from {old} to {v}.",
               "Procurement notice: {svc}s now come from {v}; the {old} contract has ended.",
               "Subject: {svc} supplier change\n\nFrom this month {v} supply and service our {svc}s, replacing {old}.\n\nProcurement & Supplies"],
    "correction": ["Correction: {svc}s are supplied by {v}, not {old}.", "Sorry, I meant {v}; {old} aren't our {svc} supplier."],
    "as_of": ["As of {date}, {v} supply our {svc}s.", "Contract register {date_short}: {svc} - {v}"],
    "distractor": ["{x} sent a rep round to demo their {svc}, nothing agreed.", "Would {x} be cheaper for {svc}s? Worth asking.",
                   "The trust next door buys its {svc}s from {x}.", "We don't get {svc}s from {x}, that's the theatre kit.",
                   "{x} lent us two {svc}s during the outage."],
    "q_current": ["Which vendor supplies the {svc}s now?"],
    "q_as_of": ["Which vendor supplied the {svc}s on {date}?"],
    "q_history": ["Which vendor supplied the {svc}s before {v}?"],
}
T["contact"] = {
    "state": ["{team}: {v}.", "To get hold of {team}, use {v}.", "Useful numbers\n{team} - {v}", "{team} can be reached on {v}."],
    "change": ["{team} have moved from {old} to {v}.", "Switchboard update: {team} is now {v} (was {old}).",
               "Please note the new number for {team}: {v}. {old} no longer works."],
    "correction": ["Correction: {team} is on {v}, not {old}.", "ignore my last message, {team} is {v}, {old} is the old number"],
    "as_of": ["As of {date}, {team} can be contacted on {v}.", "Directory change {date_compact}: {team} -> {v}",
              "{team} has been on {v} since {weekday}."],
    "distractor": ["{team} were using {x} overnight while their bleep was being fixed.", "Is {x} still {team}? Nobody answered.",
                   "{x} is the {team} office phone, not the on-call number.", "Don't use {x} for {team}, that goes to main reception."],
    "q_current": ["How do you contact {team} now?"],
    "q_as_of": ["How did you contact {team} on {date}?"],
    "q_history": ["How did you contact {team} before {v}?"],
}
T["start_time"] = {
    "state": ["{p} starts at {v}.", "{p} - first patient {v}", "Clinic template: {p}, start {v}",
              "{p} kicks off at {v}, please be there ten minutes early."],
    "change": ["{p} now starts at {v} instead of {old}.", "Template change for {p}: start time {old} -> {v}.",
               "Hi all,\n\nFrom this week {p} starts at {v}, not {old}. The booking team have moved the appointments.\n\nOutpatients Manager"],
    "correction": ["Correction: {p} starts at {v}, not {old}.", "Sorry, I meant {v} for {p}; {old} was the old template."],
    "as_of": ["As of {date}, {p} starts at {v}.", "Effective {date_short}: {p} start {v}", "{p} has been starting at {v} since {weekday}."],
    "distractor": ["{p} started at {x} once because of the fire alarm.", "Could {p} start at {x}? The consultant asked.",
                   "Did {p} run late? Patients were still waiting at {x}.", "{p} doesn't start at {x}, that's the Saturday extra list."],
    "q_current": ["What time does {p} start now?"],
    "q_as_of": ["What time did {p} start on {date}?"],
    "q_history": ["What time did {p} start before {v}?"],
}
T["room"] = {
    "state": ["{p} runs in {v}.", "{p}: {v}", "Room allocation\nClinic,Room\n{p},\"{v}\"", "Patients for {p} should be sent to {v}."],
    "change": ["{p} has moved from {old} to {v}.", "Room change - {p}: now {v}, previously {old}.",
               "Reminder that {p} is in {v} now; {old} is being refurbished."],
    "correction": ["Correction: {p} is in {v}, not {old}.", "Sorry, I meant {v}. {p} isn't in {old} any more."],
    "as_of": ["As of {date}, {p} runs in {v}.", "From {date_short}, {p} is held in {v}."],
    "distractor": ["{p} borrowed {x} for one session while the air con was fixed.", "Could {p} move to {x}? It's bigger.",
                   "Is {p} in {x} today? The sign says so.", "{x} is the hearing aid clinic's room; {p} isn't there."],
    "q_current": ["Which room is {p} held in now?"],
    "q_as_of": ["Which room was {p} held in on {date}?"],
    "q_history": ["Which room was {p} held in before {v}?"],
}
T["lead_clinician"] = {
    "state": ["{v} leads {p}.", "{p} - lead clinician: {v}", "Referrals to {p} are triaged by {v}, who runs the clinic.",
              "[clinic]\nname = {p}\nlead = {v}"],
    "change": ["{v} has taken over {p} from {old}.", "{p} has a new lead, {v}; {old} has stepped back.",
               "Lead clinician for {p} changed: {old} -> {v}."],
    "correction": ["Correction: {v} leads {p}, not {old}.", "Sorry, I meant {v}, not {old} - {p} is theirs now."],
    "as_of": ["As of {date}, {v} is lead clinician for {p}.", "{date_compact} CLINIC_LEAD clinic=\"{p}\" lead=\"{v}\"",
              "{v} has led {p} since {weekday}."],
    "distractor": ["{x} ran {p} last week while the lead was on leave.", "{x} might take over {p} next year.",
                   "Is {x} doing {p} this week?", "{x} sees patients in {p} but doesn't lead it.",
                   "{x} covers {p} when the lead is away, nothing more."],
    "q_current": ["Who is the lead clinician for {p} now?"],
    "q_as_of": ["Who was the lead clinician for {p} on {date}?"],
    "q_history": ["Who was the lead clinician for {p} before {v}?"],
}

TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    # A FHIR-like PractitionerRole with an extension list, an EBME asset lookup, a supplies
    # contract search, a switchboard directory search and an outpatient clinic template.
    "person": ("fhir.practitioner_role", {"resourceType": "PractitionerRole", "practitioner": {"display": "{s}"},
                                          "extension": [{"url": "{key}", "valueString": "{v}"}]}),
    "deployment": ("ebme.asset_lookup", {"asset": {"class": "{svc}", "location": "{env}"}, "{key}": "{v}", "register": "EBME"}),
    "service": ("supplies.contract_search", {"category": "{svc}", "contracts": [{"{key}": "{v}", "status": "live"}]}),
    "team": ("switchboard.directory_search", {"query": "{team}", "entries": [{"name": "{team}", "{key}": "{v}"}]}),
    "project": ("pas.clinic_template", {"clinic_name": "{p}", "session": {"{key}": "{v}"}, "active": True}),
}
TOOL_STAMP = ("recorded_at", "%d-%m-%Y %H:%M:%S")
JSON_KEYS = {"placement": "current_placement", "rota": "rota_pattern", "bleep": "personal_bleep",
             "clinical_supervisor": "clinical_supervisor", "educational_supervisor": "educational_supervisor",
             "status": "asset_status", "software": "software_version", "service_due": "ppm_due", "vendor": "supplier",
             "contact": "contact_number", "start_time": "session_start", "room": "room", "lead_clinician": "lead_clinician"}

NOISE: dict[str, list[str]] = {
    "chat": [
        "Can someone cover {name}'s break at {time}?",
        "Cake in the staff room for {name}'s last day!",
        "Don't forget {topic} on {weekday}.",
        "Who has the keys to the CD cupboard? {name} needs them.",
        "Porters have {n} jobs in the queue, expect delays.",
        "{name} is doing a {food} run, orders by {time}.",
        "Roads around {city} are awful, night staff may be late.",
        "Bed meeting at {time}, please have your estimated discharge dates ready.",
        "{n} of us still haven't booked {topic}, please sort it this week.",
        "{name} passed their exams! Drinks on {weekday}.",
        "The vending machine at the {city} Road entrance is eating coins again.",
        "lol {name} has been looking for the ward printer all morning",
        "{name} says it's {weather} out there today.",
    ],
    "tool": [
        '{{"specimen": "S{n}{n2}", "test": "FBC", "status": "received in lab"}}',
        '{{"car_park": "{city} Road", "spaces_free": {n}}}',
        '{{"porter_job": "PJ-{n}{n2}", "from": "ED", "to": "X-ray", "eta": "{time}"}}',
        '{{"canteen": {{"day": "{weekday}", "special": "{food}"}}}}',
    ],
    "tool_names": ["lab.specimen_status", "parking.availability", "porters.job_status", "catering.menu"],
}

REPORTERS = (("Bernadette", "user:bernadette.ward7"), ("Kwame", "user:kwame.medstaffing"), ("Lucinda", "user:lucinda.ebme"))
LOW_TRUST = (("document", "doc:trust-intranet-ward-pages"), ("document", "doc:switchboard-directory-2024.xlsx"),
             ("peer", "agent:handover-summariser"))
