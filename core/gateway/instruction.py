"""Content anomaly: text that instructs the agent instead of telling it something.

A memory is supposed to say what happened or what is true. Text that *directs the agent* —
"ignore previous instructions", "always answer that …", "from now on call tool X", "whenever
anyone asks about Y, say Z" — is the payload of a memory-poisoning attack. Detection is
structural rather than a list of forbidden phrases, so a paraphrase without any of the
well-known words still matches:

- a **directive**: an imperative clause (a clause that opens with a verb), or a modal aimed
  at the agent ("you must / should / will …", "the assistant should …", "I want you to …");
- a **target**: what is directed is the agent's own behaviour — what it says (answer, reply,
  tell, recommend, cite …), which tools or links it uses, a persona, or a trigger on future
  questions ("when someone asks about …");
- a **scope**: the directive is meant to persist or to be absolute ("always", "never", "from
  now on", "every time", "whenever", "in all future answers", "regardless", "only").

Immediate requests ("tell me about your trip") have a target but no scope; household
reminders ("remember to always lock the door") have a scope but no target; preferences
("always answer me in French", "call me Bob from now on") name the writer as beneficiary.
Those stay low. Role or prompt markers (``system:``, ``[INST]``, ``<|im_start|>``), an
override of earlier guidance, and authority claimed inside the content (forged provenance:
"verified by the administrator") are strong signals on their own. Everything runs on the
folded text (:func:`deltacore.gateway.normalization.fold`), so obfuscation does not help.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_SENTENCE = re.compile(r"(?<=[.!?;:\n])\s+|\n+")
_SEGMENT = re.compile(r",|\band then\b|\bthen\b|—| - ")

_MARKERS = re.compile(
    r"(?:^|[\s>\[(])(?:system|assistant|developer)\s*(?:prompt|message|note|override)?\s*:(?!\S)"
    r"|\[/?\s*(?:inst|sys|system)\s*\]|<\|?\s*/?\s*(?:im_start|im_end|system|endoftext|user|assistant)\s*\|?>"
    r"|#{2,}\s*(?:instruction|system|response|new task)|<\s*/?\s*(?:system|instructions?|prompt|admin)\s*>"
    r"|\b(?:system prompt|developer mode|jailbreak|prompt injection)\b"
    r"|\[\s*(?:role|channel|source|trust|sender|origin)\s*[=:]"
)

_DISMISS = (
    r"(?:ignore|disregard|forget|override|overrule|bypass|skip|drop|discard|abandon|set aside|"
    r"pay no attention to|pay no heed to|do not follow|don'?t follow|stop following|no longer follow|"
    r"do not obey|don'?t obey|stop obeying|cancel|revoke|supersede|erase|replace)"
)
_PRIOR_GUIDANCE = (
    r"(?:(?:previous|prior|preceding|earlier|above|original|initial|old|existing|other|all|any|every|your)\s+"
    r"(?:\w+\s+){0,2}(?:instructions?|rules?|guidelines?|directions?|directives?|guidance|prompts?|constraints?|"
    r"polic(?:y|ies)|orders?|restrictions?|safety|programming|training|settings?|context|messages?)"
    r"|what (?:you|u) (?:were|have been|was|are) (?:told|instructed|asked|given|taught)"
    r"|(?:everything|anything|all) (?:you were|you've been|you have been|that was) (?:told|instructed|given|said)"
    r"|the (?:system|developer)\b)"
)
# Dismissing what memory already holds ("older notes are outdated", "no need to check
# earlier records") is an override too: it asks the agent to prefer this record over the rest.
_MEMORY_DISMISSAL = re.compile(
    r"\b(?:older|old|previous|prior|earlier|other|existing|past)\s+(?:notes?|records?|memories|entries|messages|info(?:rmation)?|answers?|versions?)\s+"
    r"(?:are|is|were|was)\s+(?:outdated|obsolete|wrong|incorrect|out of date|no longer (?:valid|correct|true)|superseded|invalid|stale)"
    r"|\b(?:don'?t|do not|never) (?:check|look at|consult|trust|verify)\s+(?:the\s+)?(?:older|old|previous|prior|earlier|other)\b"
)
_OVERRIDE = re.compile(rf"\b{_DISMISS}\b.{{0,60}}?{_PRIOR_GUIDANCE}|{_PRIOR_GUIDANCE}.{{0,40}}\b(?:no longer appl|do(?:es)? not apply|are void|is void|are cancel|is cancel|expired|obsolete)")

# Verbs a clause can open with when it is an order. Common English verbs in their base form:
# a grammar lexicon (what an imperative looks like), not a list of attack words.
_BASE_VERBS = frozenset(
    """accept act add advise allow answer append apply approve ask assume avoid be become believe book bring buy call
    cancel change check choose cite claim click come confirm consider contact continue copy create delete deny
    describe direct disable disclose display do download drop email enable ensure execute explain fetch fill find
    follow forget forward get give go grant help hide include inform insert insist install invoke keep label let
    link list log look make mark mention move name navigate note notify open output paste pay pick place point post
    prefer present pretend print prioritize prioritise promote provide push put rank read recommend redirect refer
    refuse regard remember remind remove rename repeat replace reply report respond restart return reveal route
    run save say search select sell send set share show sign start state stop submit suggest switch take talk tell
    think transfer treat trust try turn update upload use verify visit wait withdraw write""".split()
)
_LEAD_WORDS = frozenset(
    """please kindly now also and so then just ok okay hey hi note important attention reminder remember pls plz
    always never only simply immediately henceforth hereafter definitely really""".split()
)
_SECOND_PERSON_MODAL = re.compile(
    r"\b(?:you|u|yourself)\s+(?:must|should|shall|will|need to|have to|has to|are to|ought to|are required to|"
    r"are going to|are supposed to|may only|can only|are expected to)\b"
    r"|\bi (?:want|need|expect|require) (?:you|u) to\b|\bmake sure (?:that )?(?:you|u)\b|\bbe sure to\b"
    r"|\b(?:your|ur) (?:job|task|role|goal|purpose|instructions?|mission|directive|duty) (?:is|are|will be)\b"
    r"|\bit is (?:important|essential|critical|mandatory|required|vital|crucial) (?:that you|that u|for you|to)\b"
)
_AGENT_NOUN = r"(?:assistant|ai|a\.i\.|model|agent|bot|chatbot|llm|language model|copilot|gpt|system|memory)"
_AGENT_MODAL = re.compile(
    rf"\b(?:the|this|our|an?|any|every)\s+{_AGENT_NOUN}\s+(?:must|should|shall|will|needs to|has to|is to|is required to|"
    r"may only|can only|is expected to|is supposed to|always|never)\b"
)
_OUTPUT_MODAL = re.compile(
    r"\b(?:every|each|all|any|your|its|the)\s+(?:future\s+)?(?:responses?|answers?|repl(?:y|ies)|outputs?|recommendations?|summar(?:y|ies))\s+"
    r"(?:must|should|shall|will|needs? to|has to|have to|is to|are to|may only|can only)\b"
)
# The future reader of the memory is the agent: "note to whoever answers this", "for the AI".
_READER_ADDRESS = re.compile(
    r"\b(?:whoever|anyone who|anybody who|the one who|those who|the person who)\s+(?:answers|reads|sees|handles|responds|replies|gets|picks up)\b"
    rf"|\b(?:note|message|reminder|instructions?|tip|memo) (?:to|for) (?:the |any |an )?(?:{_AGENT_NOUN}|future reader|reader|whoever)\b"
)
# "Assistant, …" addresses the agent; "Agent: Calculator" is a field label (a colon after a
# role name is a marker, checked above, only for system/assistant/developer).
_AGENT_VOCATIVE = re.compile(rf"(?:^|[.!?;:]\s*)(?:dear\s+|hey\s+|attention\s+)?{_AGENT_NOUN}\s*,")

# What the agent says or does on the user's behalf (its output, tools and links).
_SPEECH_VERBS = frozenset(
    """answer respond reply say tell output print recommend suggest mention state claim cite report inform advise
    insist describe refer direct redirect point link include append present promote rank prioritize prioritise""".split()
)
_TOOL_VERBS = frozenset("call invoke execute run use trigger send forward transfer pay email approve grant delete download visit navigate open route".split())
_TOOL_OBJECT = re.compile(
    r"\b(?:tools?|functions?|api|endpoints?|commands?|scripts?|plugins?|actions?|urls?|links?|websites?|site|"
    r"accounts?|wallets?|passwords?|credentials?|funds|money|payments?|tokens?|keys?)\b"
    # An e-mail address, a URL, a call ``name(``, a snake_case name, a domain. Each is anchored on
    # its one fixed character (``@``, ``(``, ``.``) so that a long run of word characters is
    # scanned once, not once per position in it (which is quadratic on blobs without spaces).
    r"|(?<=[\w.+-])@[\w-]+\.\w+|https?://|www\.|\w\(|\b\w+_\w+\b|\w-*\.(?:com|net|org|io|ru|xyz|ly)\b"
)
_PERSONA = re.compile(r"\b(?:pretend|act|behave|roleplay|role-play|pose)\s+(?:to be|as|like)\b|\byou are (?:now|no longer)\b")
_SCOPE = re.compile(
    r"\b(?:always|never|from now on|from this point|henceforth|hereafter|going forward|in the future|in future|(?:every|each|any) future|"
    r"for all future|all future|every time|each time|whenever|any time|anytime|at all times|in all cases|in every|"
    r"no matter|regardless|without exception|under no circumstances|forever|permanently|only ever|"
    r"for every (?:question|query|request|user|answer|response)|in (?:all|every|any) (?:answers?|responses?|replies|conversations?)|"
    r"(?:every|each|any|all) (?:questions?|quer(?:y|ies)|requests?|conversations?)|next time)\b"
)
_QUERY_TRIGGER = re.compile(
    r"\b(?:when|whenever|if|any time|anytime|each time|every time|once|next time)\s+(?:you are |you're |u are |someone |somebody |"
    r"anyone |anybody |the user |a user |users |people |they |a person |a customer |customers |asked |questioned )?"
    r"(?:is |are |gets |get )?(?:ask|asks|asked|asking|inquire|inquires|inquired|query|queries|queried|question|questioned|wonders?|"
    r"wants? to know|brings? up|mentions?)\b(?! me\b)"
    r"|\b(?:questions?|queries|requests?|asks?|replies|answers|responses) (?:about|regarding|concerning|related to|on the topic of)\b"
    r"|\b(?:when|whenever|if|any time|anytime|each time|every time|next time)\b[^.?!]{1,80}?\b(?:comes? up|is (?:mentioned|raised|discussed|brought up)|"
    r"are (?:mentioned|raised|discussed|brought up))\b"
    r"|\bwhen (?:talking|speaking|writing|replying|responding|chatting) (?:about|of|on)\b"
    r"|\bin (?:response|reply|answer) to (?:any|every|all|questions?|queries)\b"
)
_PLANTED_ANSWER = re.compile(
    r"\bthe (?:correct |right |real |true |actual |official |only |best )?(?:answer|response|reply) (?:to|for|is|should be|will be)\b"
    r"|\b(?:best|should be|is to be|must be) (?:answered|replied|responded)(?: to)? (?:with|by|as)\b"
    r"|\bthe (?:correct|right|true|real|accurate|current|updated|official) (?:version|fact|info(?:rmation)?|story|account) is\b"
)
# "Q: … A: …" on one line, tested by :func:`_question_and_answer` in one pass.
_QA_QUESTION = re.compile(r"(?:^|\s)(?:q|question)\s*:")
_QA_ANSWER = re.compile(r"\b(?:a|answer)\s*:")
_AUTHORITY = re.compile(
    r"\b(?:verified|approved|authori[sz]ed|confirmed|certified|signed|validated|endorsed|issued)\s+by\s+(?:the\s+)?"
    r"(?:admin|administrator|system|developers?|operators?|owners?|security team|it department|openai|anthropic|moderators?|devs)\b"
    r"|\b(?:trust(?:ed)? (?:level|score|source)|source|channel|provenance|origin|priority|clearance)\s*[:=]\s*(?:high|trusted|system|admin|verified|max|critical|1(?:\.0)?)\b"
    r"|\b(?:official|authori[sz]ed|verified|trusted|admin(?:istrator)?|system) (?:notice|message|update|instruction|directive|memo|note|override)\b"
)
_SECRECY = re.compile(
    r"\b(?:do not|don'?t|never|without) (?:tell(?:ing)?|mention(?:ing)?|reveal(?:ing)?|inform(?:ing)?|let(?:ting)?|alert(?:ing)?|notify(?:ing)?) "
    r"(?:the user|users|the human|the customers?|the operator|the admin(?:istrator)?|the owner)\b|\bkeep (?:this|it) (?:secret|hidden|confidential|between us)\b"
)
# Somewhere outside the tenant an order could send things to: an e-mail address, a URL, a domain.
_DESTINATION = re.compile(r"(?<=[\w.+-])@[\w-]+\.\w+|https?://|www\.|\w-*\.(?:com|net|org|io|ru|xyz|ly|example)\b")
_FIRST_PERSON = re.compile(r"\b(?:me|my|mine|myself|i|i'm|i'd|i'll)\b")
_THIRD_PARTY = re.compile(r"\b(?:users?|everyone|everybody|anyone|anybody|people|customers?|others|visitors?|clients?)\b")
_ANSWER_PLANT = re.compile(r"\b(?:answer|reply|respond|say)\s+(?:that|with|:)|\b(?:answer|reply|respond) (?:every|each|all|any)\b")
_LEAD_PHRASE = re.compile(
    r"^\s*(?:from now on|from this point on|from here on|going forward|in the future|in future|henceforth|hereafter|"
    r"next time|for the future|for now|this time|as a rule|by default)\b[\s:,-]*"
)
# Sayings shaped like orders to nobody in particular.
_IDIOM = re.compile(r"never say never|say no more|say cheese|never give up|never mind|say what you (?:mean|will)|say when")
_HOUSEHOLD = re.compile(
    r"\b(?:answer|get|pick up|return|reply to|respond to)\s+(?:the |my |her |his |their |your |a |any )?"
    r"(?:phone|door|doorbell|call|calls|letters?|mail|emails?|texts?|voicemails?)\b"
)
_NEGATION = re.compile(r"\b(?:never|don'?t|do not|dont|no one|nobody)\b")
_WORD = re.compile(r"[a-z']+")
_IDENTIFIER_HEAD = re.compile(r"[a-z']+[_.][a-z0-9]")


@dataclass(frozen=True, slots=True)
class ContentAnomaly:
    """How much a text reads as instructions to the agent (0 = not at all, 1 = certainly)."""

    score: float
    reasons: tuple[str, ...] = ()
    principal_score: float | None = None
    """The score when the writer is the tenant's own user speaking for themselves (the
    principal): their directives about how the agent talks to them — language, tone, persona,
    format — are preferences the memory exists to keep. Markers, overrides, authority claims,
    secrecy, planted answers and orders that reach tools, links or other people count the same
    as in :attr:`score`. ``None``: the same as :attr:`score`."""
    principal_reasons: tuple[str, ...] | None = None
    task_score: float | None = None
    """The score when the writer is a person on the user channel speaking as themselves but
    not the tenant's own user: an immediate request with no scope ("Grant bob reader access to
    dataset sales_2024") is the task they are giving, not a rule planted for later readers.
    Orders about the agent's future behaviour, addressed to the agent as a standing rule, that
    plant answers, hide things or send anything to an outside address or link count in full —
    only the tenant's own user may give those. ``None``: the same as :attr:`score`."""
    task_reasons: tuple[str, ...] | None = None

    def for_writer(self, principal: bool, speaker: bool = False) -> tuple[float, tuple[str, ...]]:
        """The score and reasons that apply to this writer: the tenant's own user
        (``principal``), another person speaking as themselves on the user channel
        (``speaker``), or anyone else."""
        if principal and self.principal_score is not None:
            return self.principal_score, self.principal_reasons or ()
        if (principal or speaker) and self.task_score is not None:
            return self.task_score, self.task_reasons or ()
        return self.score, self.reasons


def _opens_with_verb(segment: str) -> str | None:
    """The verb an imperative clause opens with (after leading fillers), else None."""
    words = _WORD.findall(_LEAD_PHRASE.sub("", segment))
    position = 0
    negated = False
    while position < len(words) and (words[position] in _LEAD_WORDS or words[position] in ("do", "don't", "not", "dont")):
        if words[position] in ("never", "don't", "dont", "not"):
            negated = True
        if words[position] == "do" and position + 1 < len(words) and words[position + 1] == "not":
            negated = True
        position += 1
    if position >= len(words):
        return None
    # "from now on, …" / "in the future …" lead-ins are handled by the comma split; a bare verb
    # with nothing after it ("stop") is not an order to anyone in particular.
    # A verb that is the head of an identifier ("grant_access", "run.migrate") names a tool or
    # a field (a tool result's JSON), it does not give an order.
    if _IDENTIFIER_HEAD.match(segment, segment.find(words[position])):
        return None
    if words[position] in _BASE_VERBS and (len(words) - position >= 2 or negated):
        return words[position]
    return None


def _question_and_answer(folded: str) -> bool:
    """A ``q:`` / ``question:`` marker followed, later on its line, by ``a:`` / ``answer:``.

    The next answer marker is searched once and reused for every question marker before it,
    so many markers cost one pass (a pattern with ``.*`` between them would rescan the rest of
    the text for each question marker).
    """
    answer: re.Match[str] | None = None
    for question in _QA_QUESTION.finditer(folded):
        if answer is None or answer.start() < question.end():
            answer = _QA_ANSWER.search(folded, question.end())
            if answer is None:
                return False
        line_end = folded.find("\n", question.end())
        if line_end < 0 or answer.start() < line_end:
            return True
    return False


def _maybe(folded: str, keys: tuple[str, ...]) -> bool:
    """Cheap substring test before a costly regex (most memories contain none of the keys)."""
    return any(key in folded for key in keys)


_MARKER_KEYS = ("system", "assistant", "developer", "inst", "sys", "im_", "endoftext", "##", "<", "jailbreak", "prompt", "[")
_OVERRIDE_KEYS = (
    "ignore", "disregard", "forget", "overrid", "overrul", "bypass", "skip", "drop", "discard", "abandon", "aside",
    "no attention", "no heed", "follow", "obey", "cancel", "revoke", "supersede", "erase", "replace", "appl", "void", "expired", "obsolete",
)
_MODAL_KEYS = ("must", "should", "shall", "will", "need", "have to", "has to", "are to", "is to", "ought", "required", "going to",
               "supposed", "only", "want", "expect", "require", "make sure", "be sure", "job", "task", "role", "goal", "purpose",
               "instruction", "mission", "directive", "duty", "important", "essential", "critical", "mandatory", "vital", "crucial",
               "always", "never", ",", ":")
_PLANTED_KEYS = ("answer", "respon", "repl", "version", "fact", "info", "story", "account", "q:", "question")
_AUTHORITY_KEYS = ("by", ":", "=", "official", "authori", "verified", "trusted", "admin", "system")


def analyze_instruction(folded: str) -> ContentAnomaly:
    """Score one folded text (see the module docstring for the features)."""
    if not folded:
        return ContentAnomaly(0.0)
    reasons: list[str] = []
    score = 0.0
    if _maybe(folded, _MARKER_KEYS) and _MARKERS.search(folded):
        score = max(score, 0.9)
        reasons.append("role or prompt markers")
    if _maybe(folded, _OVERRIDE_KEYS) and _OVERRIDE.search(folded):
        score = max(score, 1.0)
        reasons.append("overrides earlier instructions")
    if _MEMORY_DISMISSAL.search(folded):
        score = max(score, 0.6)
        reasons.append("tells the agent to disregard other memories")
    authority = _maybe(folded, _AUTHORITY_KEYS) and bool(_AUTHORITY.search(folded))
    trigger = bool(_QUERY_TRIGGER.search(folded))
    planted = _maybe(folded, _PLANTED_KEYS) and bool(_PLANTED_ANSWER.search(folded) or _question_and_answer(folded))
    secrecy = bool(_SECRECY.search(folded))

    addressed = bool(_READER_ADDRESS.search(folded) or _AGENT_VOCATIVE.search(folded))
    best_directive = 0.0
    best_principal = 0.0  # the same, for the principal's own preferences (see ContentAnomaly)
    best_task = 0.0  # the same, for another person's immediate task (ContentAnomaly.task_score)
    for sentence in _SENTENCE.split(folded):
        if not sentence.strip() or _IDIOM.fullmatch(sentence.strip(" .!")):
            continue
        directive_verbs: list[str] = []
        for segment in _SEGMENT.split(sentence):
            verb = _opens_with_verb(segment)
            if verb:
                directive_verbs.append(verb)
        if not directive_verbs and not addressed and not _maybe(sentence, _MODAL_KEYS):
            continue  # no imperative and no modal: nothing here gives orders
        scoped = bool(_SCOPE.search(sentence)) or bool(_QUERY_TRIGGER.search(sentence))
        aimed_at_agent = bool(
            _AGENT_MODAL.search(sentence) or _AGENT_VOCATIVE.search(sentence) or _OUTPUT_MODAL.search(sentence)
        )
        aimed_at_agent = aimed_at_agent or addressed
        modal = aimed_at_agent or bool(_SECOND_PERSON_MODAL.search(sentence))
        if not directive_verbs and not modal:
            continue
        words = set(_WORD.findall(sentence))
        # "answer the phone", "reply to grandma's letter": the household meaning of a speech verb.
        speech = bool(words & _SPEECH_VERBS) and not _HOUSEHOLD.search(sentence)
        links = bool(_TOOL_OBJECT.search(sentence))
        tool = bool(words & _TOOL_VERBS) and links
        planting = bool(_ANSWER_PLANT.search(sentence))
        persona = bool(_PERSONA.search(sentence))
        target = speech or tool or persona or aimed_at_agent
        # Stored in a memory, an order addressed to the assistant, one that sends it to a tool or
        # a link, or one that dictates its answers stands for every later reading: it is scoped.
        scoped = scoped or aimed_at_agent or planting or (target and links)
        if not target:
            value = 0.2 if scoped else 0.05  # "remember to always lock the door"
        elif not scoped and not secrecy:
            value = 0.15  # an immediate request: "tell me about your trip"
        else:
            value = 0.6 + 0.25 * scoped + 0.1 * (trigger or tool) + 0.15 * secrecy + 0.1 * aimed_at_agent
            # The writer as beneficiary is a preference ("always answer me in French"), unless
            # the order reaches third parties or tools.
            withholding = bool(_NEGATION.search(sentence))
            reaches_others = bool(_THIRD_PARTY.search(sentence)) and not withholding
            if _FIRST_PERSON.search(sentence) and not reaches_others and not tool and not aimed_at_agent:
                value = 0.25
        # Said by the principal, an order about the agent's own speech or persona is theirs to
        # give; one that reaches tools, links, third parties or hides things is not.
        own = value >= 0.6 and not links and not tool and not secrecy and not _THIRD_PARTY.search(sentence)
        # Said by the principal with no scope of its own ("Grant bob reader access to dataset
        # sales_2024"), an order for tools is the task at hand, not a rule planted for later.
        explicit = bool(_SCOPE.search(sentence)) or bool(_QUERY_TRIGGER.search(sentence))
        task = value >= 0.6 and not explicit and not secrecy and not planting and not addressed
        # Anyone else's immediate task stays a task only while it neither legislates for the
        # agent ("the assistant should …") nor sends anything outside (an address, a link).
        speaker_task = task and not aimed_at_agent and not _DESTINATION.search(sentence)
        best_directive = max(best_directive, value)
        best_principal = max(best_principal, 0.15 if task else 0.25 if own else value)
        best_task = max(best_task, 0.15 if speaker_task else value)
    principal_reasons = list(reasons)
    task_reasons = list(reasons)
    if best_directive >= 0.6:
        reasons.append("instruction aimed at the agent")
    if best_principal >= 0.6:
        principal_reasons.append("instruction aimed at the agent")
    if best_task >= 0.6:
        task_reasons.append("instruction aimed at the agent")
    principal = max(score, min(best_principal, 1.0))
    task_only = max(score, min(best_task, 1.0))
    score = max(score, min(best_directive, 1.0))
    score, reasons_ = _common_signals(score, list(reasons), trigger, planted, best_directive, authority, secrecy)
    principal, principal_reasons_ = _common_signals(
        principal, principal_reasons, trigger, planted, best_principal, authority, secrecy
    )
    task_only, task_reasons_ = _common_signals(task_only, task_reasons, trigger, planted, best_task, authority, secrecy)
    if principal == score and principal_reasons_ == reasons_ and task_only == score and task_reasons_ == reasons_:
        return ContentAnomaly(score, reasons_)
    return ContentAnomaly(score, reasons_, principal, principal_reasons_, task_only, task_reasons_)


def _common_signals(
    score: float, reasons: list[str], trigger: bool, planted: bool, best_directive: float, authority: bool, secrecy: bool
) -> tuple[float, tuple[str, ...]]:
    """Planted answers, authority claims and secrecy on top of the directive score."""
    if trigger and (planted or best_directive >= 0.15):
        score = max(score, 0.75)
        reasons.append("answer planted for future questions")
    elif planted:
        score = max(score, 0.45)
        reasons.append("planted answer")
    elif trigger:
        score = max(score, 0.35)
        reasons.append("aimed at future questions")
    if authority:
        score = max(score, 0.4) if score < 0.4 else min(1.0, score + 0.2)
        reasons.append("authority claimed inside the content")
    if secrecy and score < 0.5:
        score = max(score, 0.45)
        reasons.append("asks to hide something from the user")
    return round(min(score, 1.0), 4), tuple(dict.fromkeys(reasons))
