#!/usr/bin/env python3
"""Recompute every golden payload from docs/scoring.md, independently of pads.

For each case of cases.json this script applies the rules of
docs/scoring.md (pads-score-3) as written there, with nothing taken from
the Go code, and compares the measurements, categories, scores, flags,
withheld reason and caveats it gets with testdata/golden/<name>.json. It
prints one line per difference and exits 1 if there is any.

    python3 internal/payload/testdata/check_golden.py

Standard library only. Exact fractions are used wherever the page's
arithmetic is exact, so that "x.5 rounds up" means what it says.
"""

import datetime
import json
import math
import os
import sys
from fractions import Fraction as F

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = "pads-score-3"
# golden_test.go builds every payload at this time (the "made at" time used
# for the age when the assessment has no completion time).
MADE_AT = datetime.date(2026, 11, 22)


def q(x):
    """An exact fraction of a JSON number (or None)."""
    return None if x is None else F(str(x))


def round_half_up(x):
    return math.floor(x + F(1, 2))


# --- Inputs (docs/scoring.md, "Inputs of the model") -----------------------


# Tolerances between fields of one quantity ("One quantity, one value").
TOL_HEART_RATE, TOL_AGE, TOL_WEIGHT_KG, TOL_HEIGHT_IN, TOL_BMI = 5, 1, 1, 1, 1


def pick(latest, tol, sources):
    """sources: [(name, value)] in source order. Returns (value, index, conflict)."""
    for i, (name, v) in enumerate(sources):
        if latest and name == latest and v is not None:
            return v, i, False
    known = [(i, v) for i, (_, v) in enumerate(sources) if v is not None]
    if not known:
        return None, -1, False
    i0, v0 = known[0]
    if any(abs(v - v0) > tol for _, v in known[1:]):
        return None, -1, True
    return v0, i0, False


def latest_of(f, quantity):
    return (f.get("latest") or {}).get(quantity, "")


def given(f, *names):
    return [n for n in names if f.get(n) is not None]


def years_since(dob, at):
    if dob is None:
        return None
    born = datetime.date.fromisoformat(dob)
    years = at.year - born.year - ((at.month, at.day) < (born.month, born.day))
    return F(years) if 0 <= years <= 130 else None


def age_of(f, completed):
    """(age, contradictory)"""
    # dateOfBirth first: it is exact, age a whole count that can lag.
    v, _, conflict = pick(latest_of(f, "age"), TOL_AGE,
                          [("dateOfBirth", years_since(f.get("dateOfBirth"), completed or MADE_AT)), ("age", q(f.get("age")))])
    return v, conflict


def birth_date_of(f, completed):
    """dateOfBirth as shown: only when it agrees with the age scored (within 1 year)."""
    dob = years_since(f.get("dateOfBirth"), completed or MADE_AT)
    age, _ = age_of(f, completed)
    if dob is None or age is None or abs(dob - age) > TOL_AGE:
        return None
    return f.get("dateOfBirth")


def heart_rate_of(f):
    """(bpm, conflicting fields)"""
    from_ibi = None
    if f.get("ibi") is not None and q(f["ibi"]) > 0:
        # 60000 / ibi rounded to 0.1 bpm, used only within heartRateBpm's bounds 20-300
        v = F(round_half_up(F(60000) / q(f["ibi"]) * 10), 10)
        from_ibi = v if 20 <= v <= 300 else None
    v, _, conflict = pick(latest_of(f, "heartRate"), TOL_HEART_RATE,
                          [("heartRateBpm", q(f.get("heartRateBpm"))), ("riskRestingHeartRate", q(f.get("riskRestingHeartRate"))),
                           ("ibi", from_ibi)])
    if conflict:
        return None, given(f, "heartRateBpm", "riskRestingHeartRate", "ibi")
    return v, []


def hrv_of(f):
    if f.get("heartRateVariabilityMs") is not None:
        return q(f["heartRateVariabilityMs"]), "SDNN"
    if f.get("rmssd") is not None:
        return q(f["rmssd"]), "RMSSD"
    return None, None


KG_PER_LB = F("0.45359237")
LB_PER_KG = F("2.20462")


def plausible_bmi(b):
    return 10 <= b <= 80


def bmi_of(kg, inches):
    m = inches * F("2.54") / 100
    return kg / (m * m)


def imperial_height(f):
    ft, inch = q(f.get("heightFt")), q(f.get("heightIn"))
    if ft is not None and inch is None:
        return None  # feet alone: the inches may never have been sent
    if ft is not None:
        total = ft * 12 + inch
        return total if 0 < total <= 96 else None
    if inch is not None and 36 <= inch <= 96:
        return inch
    return None


def height_of(f):
    cm = q(f.get("heightCm"))
    metric = None if cm is None else cm / F("2.54")
    v, _, conflict = pick(latest_of(f, "height"), TOL_HEIGHT_IN, [("heightFt", imperial_height(f)), ("heightCm", metric)])
    if conflict or v is None:
        return None
    if v * F("2.54") < 30 or v > 96:
        return None
    return v


def weight_of(f):
    """(kg, from pounds)"""
    lb, kg = q(f.get("weightLb")), q(f.get("weightKg"))
    v, i, conflict = pick(latest_of(f, "weight"), TOL_WEIGHT_KG,
                          [("weightLb", None if lb is None else lb * KG_PER_LB), ("weightKg", kg)])
    if conflict or v is None:
        return None, False
    if not (1 <= v <= 650 and 2 <= v * LB_PER_KG <= 1400):
        return None, False
    return v, i == 0


def body_of(f):
    """(weight in lb as shown, height in inches, BMI) after plausibility."""
    weight_kg, from_lb = weight_of(f)
    height = height_of(f)
    if weight_kg is not None and height is not None and not plausible_bmi(bmi_of(weight_kg, height)):
        weight_kg = height = None
    weight_lb = None
    if weight_kg is not None:
        weight_lb = q(f["weightLb"]) if from_lb else weight_kg * LB_PER_KG
    computed = bmi_of(weight_kg, height) if weight_kg is not None and height is not None else None
    risk = q(f.get("riskBmi"))
    risk = risk if risk is not None and plausible_bmi(risk) else None
    bmi, i, _ = pick(latest_of(f, "bmi"), TOL_BMI, [("riskBmi", risk), ("body", computed)])
    if i == 0 and computed is not None and abs(computed - bmi) > TOL_BMI:
        weight_lb = height = None  # superseded by a later riskBmi: not shown
    return weight_lb, height, bmi


NEGATED = ["non smoker", "nonsmoker", "not a smoker", "not smoking", "not current", "not a current", "not currently",
           "no longer", "does not smoke", "doesn't smoke", "do not smoke", "don't smoke"]
CURRENT = ["current", "currently", "daily", "every day", "everyday", "some days", "someday", "occasional", "occasionally",
           "still", "social"]
FORMER = ["former", "formerly", "quit", "ex smoker", "exsmoker", "stopped", "used to"]


def smoking_status(status):
    """docs/scoring.md, "Smoking": the normalised status of a smokerRiskStatus text."""
    chars = "".join(c if c.isalnum() or c == "'" else ("'" if c == "\u2019" else " ") for c in status.lower())
    s = " " + " ".join(chars.split()) + " "
    has = lambda ws: any(" " + w + " " in s for w in ws)
    bare = s.strip()
    if has(NEGATED):
        return "Former smoker" if has(FORMER) else "Never smoked" if has(["never"]) else "Non-smoker"
    if has(CURRENT):
        return "Current smoker"
    if has(FORMER):
        return "Former smoker"
    if has(["never"]):
        return "Never smoked"
    if bare in ("yes", "y", "true") or "smok" in s:
        return "Current smoker"
    if bare in ("no", "n", "false", "none"):
        return "Non-smoker"
    return "Unknown"


def smoker_meaning(status):
    if status is None:
        return None
    return {"Current smoker": True, "Unknown": None}.get(smoking_status(status), False)


def smoking_of(f):
    """(smoker for the model, smokerStatus shown)"""
    status, flag = f.get("smokerRiskStatus"), f.get("smoker")
    meaning = smoker_meaning(status)
    text = lambda b: "Current smoker" if b else "Non-smoker"
    latest = latest_of(f, "smoker")
    if latest == "smokerRiskStatus" and status is not None:
        return meaning, smoking_status(status)
    if latest == "smoker" and flag is not None:
        return flag, text(flag)
    if meaning is not None and flag is not None and meaning != flag:
        return True, "Current smoker"  # the answer that says smoker
    if meaning is not None or (status is not None and flag is None):
        return meaning, smoking_status(status)
    if flag is not None:
        return flag, text(flag)
    return None, None


def whole(x):
    return None if x is None else F(round_half_up(x))


# --- Red flags (docs/scoring.md, "Red flags") -----------------------------


def news2_resp(r):
    if r <= 8:
        return 3
    if r <= 11:
        return 1
    if r <= 20:
        return 0
    if r <= 24:
        return 2
    return 3


def news2_spo2(s):
    if s >= 96:
        return 0
    if s >= 94:
        return 1
    if s >= 92:
        return 2
    return 3


def news2_sys(s):
    if s <= 90:
        return 3
    if s <= 100:
        return 2
    if s <= 110:
        return 1
    if s <= 219:
        return 0
    return 3


def news2_pulse(h):
    if h <= 40:
        return 3
    if h <= 50:
        return 1
    if h <= 90:
        return 0
    if h <= 110:
        return 1
    if h <= 130:
        return 2
    return 3


def pts(v, table):
    return 0 if v is None else table(v)


RED = "Red flag: {}; see a clinician"


def two_sided(v, table, low_below):
    if v is None or table(v) != 3:
        return None
    return "LL" if v < low_below else "HH"


def yes(cond, code):
    return code if cond else None


def known(x, test):
    return x is not None and test(x)


# (code, text, measurement, severity, minimum age or "every", test -> interpretation or None)
RED_FLAGS = [
    ("spo2-below-90", RED.format("SpO2 below 90%"), "spo2", "every", lambda v, i: yes(known(v["spo2"], lambda s: s < 90), "LL")),
    ("bp-above-180-120", RED.format("blood pressure above 180/120"), "bp", "every",
     lambda v, i: yes(known(v["sys"], lambda s: s > 180) or known(v["dia"], lambda d: d > 120), "HH")),
    ("bp-below-90-60", RED.format("blood pressure below 90/60"), "bp", 18,
     lambda v, i: yes(known(v["sys"], lambda s: s < 90) or known(v["dia"], lambda d: d < 60), "LL")),
    ("irregular-abnormal-rate", RED.format("irregular heartbeats with a rate outside 50-100"), "rhythm", 18,
     lambda v, i: yes(v["irregular"] and known(v["hr"], lambda h: h < 50 or h > 100), "AA")),
    ("heart-rate-below-40", RED.format("resting heart rate below 40"), "hr", 18, lambda v, i: yes(known(v["hr"], lambda h: h < 40), "LL")),
    ("heart-rate-above-130", RED.format("resting heart rate above 130"), "hr", 18, lambda v, i: yes(known(v["hr"], lambda h: h > 130), "HH")),
    ("news2-respiration-3", RED.format("breathing rate scores 3 on NEWS2"), "rr", 16, lambda v, i: two_sided(v["rr"], news2_resp, 12)),
    ("news2-spo2-3", RED.format("SpO2 scores 3 on NEWS2"), "spo2", 16, lambda v, i: yes(pts(v["spo2"], news2_spo2) == 3, "LL")),
    ("news2-systolic-3", RED.format("systolic pressure scores 3 on NEWS2"), "bp", 16, lambda v, i: two_sided(v["sys"], news2_sys, 111)),
    ("news2-pulse-3", RED.format("heart rate scores 3 on NEWS2"), "hr", 16, lambda v, i: two_sided(v["hr"], news2_pulse, 51)),
    ("news2-total-5", RED.format("NEWS2 total of 5 or more"), "combined", 16,
     lambda v, i: yes(pts(v["rr"], news2_resp) + pts(v["spo2"], news2_spo2) + pts(v["sys"], news2_sys) + pts(v["hr"], news2_pulse) >= 5, "AA")),
]
RED_FLAGS = [(c, t, m, "severe", a, fn) for c, t, m, a, fn in RED_FLAGS]


def between(x, lo, hi):
    return x is not None and lo <= x < hi


FINDINGS = [
    ("bp-stage-2", "Blood pressure in the stage 2 range (140 or more, or 90 or more)", "bp", "moderate", 18,
     lambda v, i: yes(i["bp_class"] == "High reading (stage 2 range)", "H")),
    ("bp-stage-1", "Blood pressure in the stage 1 range (130-139, or 80-89)", "bp", "mild", 18,
     lambda v, i: yes(i["bp_class"] == "High reading (stage 1 range)", "H")),
    ("bp-elevated", "Elevated blood pressure (systolic 120-129)", "bp", "mild", 18,
     lambda v, i: yes(i["bp_class"] == "Elevated reading", "H")),
    ("heart-rate-high", "Resting heart rate above 100", "hr", "moderate", 18, lambda v, i: yes(known(v["hr"], lambda h: h > 100), "H")),
    ("heart-rate-low", "Resting heart rate below 50", "hr", "mild", 18, lambda v, i: yes(known(v["hr"], lambda h: h < 50), "L")),
    ("irregular-rhythm", "Irregular heartbeats reported; an ECG read by a clinician is advised", "rhythm", "moderate", 18,
     lambda v, i: yes(v["irregular"], "A")),
    ("breathing-rate-high", "Breathing rate above 20", "rr", "moderate", 18, lambda v, i: yes(known(v["rr"], lambda r: r > 20), "H")),
    ("breathing-rate-low", "Breathing rate below 12", "rr", "mild", 18, lambda v, i: yes(known(v["rr"], lambda r: r < 12), "L")),
    ("spo2-below-95", "SpO2 below 95%", "spo2", "moderate", 18, lambda v, i: yes(known(v["spo2"], lambda s: s < 95), "L")),
    ("bmi-underweight", "BMI below 18.5 (underweight)", "bmi", "moderate", 18, lambda v, i: yes(known(i["bmi"], lambda b: b < F("18.5")), "L")),
    ("bmi-obesity-2", "BMI 35 or more (obesity class II or III)", "bmi", "moderate", 18, lambda v, i: yes(known(i["bmi"], lambda b: b >= 35), "H")),
    ("bmi-obesity-1", "BMI 30 to 34.9 (obesity class I)", "bmi", "mild", 18, lambda v, i: yes(between(i["bmi"], 30, 35), "H")),
    ("total-cholesterol-high", "Total cholesterol 240 mg/dL or more (high)", "tc", "moderate", 18, lambda v, i: yes(known(i["tc"], lambda x: x >= 240), "H")),
    ("total-cholesterol-borderline", "Total cholesterol 200-239 mg/dL (borderline high)", "tc", "mild", 18, lambda v, i: yes(between(i["tc"], 200, 240), "H")),
    ("ldl-very-high", "LDL cholesterol 190 mg/dL or more (very high)", "ldl", "moderate", 18, lambda v, i: yes(known(i["ldl"], lambda x: x >= 190), "H")),
    ("ldl-high", "LDL cholesterol 160-189 mg/dL (high)", "ldl", "moderate", 18, lambda v, i: yes(between(i["ldl"], 160, 190), "H")),
    ("ldl-borderline", "LDL cholesterol 130-159 mg/dL (borderline high)", "ldl", "mild", 18, lambda v, i: yes(between(i["ldl"], 130, 160), "H")),
    ("hdl-low", "HDL cholesterol below 40 mg/dL (low)", "hdl", "mild", 18, lambda v, i: yes(known(i["hdl"], lambda x: x < 40), "L")),
    ("triglycerides-very-high", "Triglycerides 500 mg/dL or more (very high)", "tg", "moderate", 18, lambda v, i: yes(known(i["tg"], lambda x: x >= 500), "H")),
    ("triglycerides-high", "Triglycerides 200-499 mg/dL (high)", "tg", "moderate", 18, lambda v, i: yes(between(i["tg"], 200, 500), "H")),
    ("triglycerides-borderline", "Triglycerides 150-199 mg/dL (borderline high)", "tg", "mild", 18, lambda v, i: yes(between(i["tg"], 150, 200), "H")),
    ("metabolic-syndrome", "3 or more of the 5 metabolic syndrome criteria", "mets", "moderate", 18, lambda v, i: yes(known(i["mets"], lambda n: n >= 3), "A")),
    ("ten-year-risk-high", "10-year cardiovascular risk 20% or more (high)", "risk", "moderate", 18, lambda v, i: yes(known(i["risk"], lambda x: x >= 20), "H")),
    ("ten-year-risk-intermediate", "10-year cardiovascular risk 7.5% to 19.9% (intermediate)", "risk", "mild", 18,
     lambda v, i: yes(between(i["risk"], F("7.5"), 20), "H")),
    ("hypertension-declared", "Hypertension declared (or blood pressure medication)", "hypertension", "moderate", 18,
     lambda v, i: yes(i["hypertension"], "A")),
    ("diabetes-declared", "Diabetes declared", "diabetes", "moderate", 18, lambda v, i: yes(i["diabetic"], "A")),
    ("current-smoker", "Current smoker", "smoking", "mild", 18, lambda v, i: yes(i["smoker"] is True, "A")),
]
SEVERITY = {"mild": 1, "moderate": 2, "severe": 3}
CAP = {"mild": 79, "moderate": 59, "severe": 39}


def flags_of(age, v, i):
    """Raised flags as dicts, the most severe of each measurement only, most severe first, in table order."""
    raised = []
    for code, text, measurement, severity, ages, test in RED_FLAGS + FINDINGS:
        if ages != "every" and (age is None or age < ages):
            continue
        interp = test(v, i)
        if interp:
            raised.append({"code": code, "text": text, "severity": severity, "interpretation": interp,
                           "measurement": measurement,
                           "seeClinician": severity == "severe" or code == "irregular-rhythm"})
    worst = {}
    for fl in raised:
        worst[fl["measurement"]] = max(worst.get(fl["measurement"], 0), SEVERITY[fl["severity"]])
    kept = [fl for fl in raised if SEVERITY[fl["severity"]] == worst[fl["measurement"]]]
    return sorted(kept, key=lambda fl: -SEVERITY[fl["severity"]])  # sorted() is stable: table order within a severity


# --- Categories ------------------------------------------------------------


def bp_category(s, d):
    """ACC/AHA 2017 on the readings known: with one alone, only a category it proves (else None)."""
    if s is None and d is None:
        return None
    if s is None and d < 80 or d is None and s < 120:
        return None
    s = 0 if s is None else s
    d = 0 if d is None else d
    if s >= 140 or d >= 90:
        return "High reading (stage 2 range)"
    if s >= 130 or d >= 80:
        return "High reading (stage 1 range)"
    if s >= 120:
        return "Elevated reading"
    return "Normal range"


def hr_category(h, irregular):
    if h < 50:
        return "Low reading"
    if h > 100:
        return "High reading"
    return "Normal range, irregular beats reported" if irregular else "Normal range"


def rr_category(r):
    if r < 12:
        return "Low reading"
    if r > 20:
        return "High reading"
    return "Normal range"


def spo2_category(s):
    return "Normal range" if s >= 95 else "Below normal range"


HRV_NORMS = {"SDNN": (50, 32, 93), "RMSSD": (42, 19, 75)}  # mean, bottom, top


def hrv_category(x, measure):
    _, lo, hi = HRV_NORMS[measure]
    if x < lo:
        return "Below typical range"
    if x > hi:
        return "Above typical range"
    return "Typical range"


def score_band(s):
    if s >= 80:
        return "Excellent"
    if s >= 60:
        return "Good"
    if s >= 40:
        return "Fair"
    return "Poor"


def credit_band(c):
    if c >= 800:
        return "Exceptional"
    if c >= 740:
        return "Very Good"
    if c >= 670:
        return "Good"
    if c >= 580:
        return "Fair"
    return "Poor"


def stress(r):
    for floor, name in ((80, "Low"), (60, "Mild"), (40, "Moderate"), (20, "High")):
        if r >= floor:
            return name
    return "Very High"


# --- Components ----------------------------------------------------------


def line(x, a, b):
    """0 at or beyond a, 1 at or beyond b, the straight line between."""
    x, a, b = F(x), F(a), F(b)
    t = (x - a) / (b - a)
    return min(F(1), max(F(0), t))


def wellness(x, zero_lo, lo, hi, zero_hi):
    if x < lo:
        return line(x, zero_lo, lo)
    if x > hi:
        return line(x, zero_hi, hi)
    return F(1)


def hrv_component(x, measure):
    mean, bottom, _ = HRV_NORMS[measure]
    if x >= bottom:
        return F(1, 2) + F(1, 2) * line(x, bottom, mean)
    return F(1, 2) * line(x, F(bottom, 3), bottom)


def bp_component(s, d):
    if s < 90 or s > 180:
        sp = F(0)
    elif s >= 140:
        sp = F("0.3")
    elif s >= 130:
        sp = F("0.6")
    elif s >= 120:
        sp = F("0.8")
    else:
        sp = F(1)
    if d < 60 or d > 120:
        dp = F(0)
    elif d >= 90:
        dp = F("0.3")
    elif d >= 80:
        dp = F("0.6")
    else:
        dp = F(1)
    return min(sp, dp)


def bmi_component(b):
    for edge, val in ((16, "0.3"), (17, "0.5"), (F("18.5"), "0.7"), (25, "1"), (30, "0.7"), (35, "0.5"), (40, "0.3")):
        if b < edge:
            return F(val)
    return F("0.1")


def step(x, table, last):
    for edge, val in table:
        if x < edge:
            return F(val)
    return F(last)


def tc_component(x):
    return step(x, ((200, "1"), (240, "0.6")), "0.2")


def ldl_component(x):
    return step(x, ((100, "1"), (130, "0.85"), (160, "0.6"), (190, "0.35")), "0.1")


def hdl_component(x):
    if x >= 60:
        return F(1)
    if x >= 40:
        return F("0.7")
    return F("0.3")


def tg_component(x):
    return step(x, ((150, "1"), (200, "0.7"), (500, "0.4")), "0.1")


def mets_component(n):
    return 1 - min(max(n, F(0)), F(5)) / 5


def risk_component(p):
    return step(p, ((5, "1"), (F("7.5"), "0.75"), (20, "0.45")), "0.15")


def weighted(minimum, terms):
    known = [(v, w) for v, w in terms if v is not None]
    if len(known) < minimum:
        return None
    total = sum(w for _, w in known)
    return F(round_half_up(sum(v * w for v, w in known) / total * 100))


# --- The model -------------------------------------------------------------


REQUIRED = ["systolicBloodPressureMmhg", "diastolicBloodPressureMmhg", "heartRateBpm", "breathingRateBpm", "oxygen"]


def withheld_of(age, age_conflict, vit, hr_conflicts):
    if age_conflict:
        return {"reason": "age-contradictory", "fields": ["age", "dateOfBirth"]}
    if age is None:
        return {"reason": "age-unknown", "fields": ["age", "dateOfBirth"]}
    if age < 18:
        return {"reason": "under-18", "fields": ["age", "dateOfBirth"]}
    if vit["hr"] is None and hr_conflicts:
        return {"reason": "contradictory-measurements", "fields": hr_conflicts}
    missing = [name for name, key in zip(REQUIRED, ("sys", "dia", "hr", "rr", "spo2")) if vit[key] is None]
    if missing:
        return {"reason": "insufficient-measurements", "fields": missing}
    return None


def completed_of(case):
    completed = case.get("assessmentCompletedAt")
    return datetime.date.fromisoformat(completed[:10]) if completed else None


def number(x):
    """A number as the payload writes it: shortest form, no trailing .0."""
    x = F(x)
    return str(x.numerator) if x.denominator == 1 else repr(float(x))


def reading_of(measurement, v, i):
    """docs/scoring.md, "Flags": the value that raised a flag, as its rule read it."""
    unit = lambda x, u: "" if x is None else number(x) + u
    if measurement == "bp":
        if v["sys"] is not None and v["dia"] is not None:
            return f"{number(v['sys'])}/{number(v['dia'])} mmHg"
        return f"systolic {number(v['sys'])} mmHg" if v["sys"] is not None else f"diastolic {number(v['dia'])} mmHg"
    if measurement == "rhythm":
        return "irregular" if v["hr"] is None else f"irregular, {number(v['hr'])} /min"
    if measurement == "combined":
        return "NEWS2 %d" % (pts(v["rr"], news2_resp) + pts(v["spo2"], news2_spo2) + pts(v["sys"], news2_sys) + pts(v["hr"], news2_pulse))
    if measurement == "bmi":
        return number(F(round_half_up(i["bmi"] * 10), 10)) + " kg/m²"
    return {"hr": lambda: unit(v["hr"], " /min"), "rr": lambda: unit(v["rr"], " /min"), "spo2": lambda: unit(v["spo2"], " %"),
            "tc": lambda: unit(i["tc"], " mg/dL"), "ldl": lambda: unit(i["ldl"], " mg/dL"), "hdl": lambda: unit(i["hdl"], " mg/dL"),
            "tg": lambda: unit(i["tg"], " mg/dL"), "mets": lambda: unit(i["mets"], " of 5"), "risk": lambda: unit(i["risk"], " %"),
            "hypertension": lambda: "declared", "diabetes": lambda: "declared", "smoking": lambda: "Current smoker"}[measurement]()


def expected(case):
    f = case["fields"]
    completed = completed_of(case)
    age, age_conflict = age_of(f, completed)
    hr, hr_conflicts = heart_rate_of(f)
    hrv, measure = hrv_of(f)
    weight_lb, height_in, bmi = body_of(f)
    smoker, smoker_shown = smoking_of(f)
    out = {k: None for k in CHECKED}
    out.update({
        "systolicBloodPressure": q(f.get("systolicBloodPressureMmhg")),
        "diastolicBloodPressure": q(f.get("diastolicBloodPressureMmhg")),
        "heartRateBpm": hr,
        "heartRateVariabilityMs": hrv,
        "breathingRateBpm": q(f.get("breathingRateBpm")),
        "oxygenSaturationPercent": q(f.get("oxygen")),
        "weight": None if weight_lb is None else F(round_half_up(weight_lb * 10), 10),
        "height": None if height_in is None else "%d'%d\"" % divmod(round_half_up(height_in), 12),
        "age": age,
        "smokerStatus": smoker_shown,
    })
    v = {
        "sys": whole(q(f.get("systolicBloodPressureMmhg"))), "dia": whole(q(f.get("diastolicBloodPressureMmhg"))),
        "hr": whole(hr), "rr": whole(q(f.get("breathingRateBpm"))), "spo2": whole(q(f.get("oxygen"))),
        "irregular": f.get("irregularHeartBeats") is True,
    }
    info = {
        "bp_class": bp_category(v["sys"], v["dia"]), "bmi": bmi, "tc": q(f.get("riskTotalCholestrol")), "ldl": q(f.get("riskLdl")),
        "hdl": q(f.get("riskHdl")), "tg": q(f.get("riskTriglycerdies")), "mets": q(f.get("riskMetSComp")),
        "risk": q(f.get("riskTenYrCvd")), "diabetic": f.get("diabetic") is True, "smoker": smoker,
        "hypertension": f.get("hypertension") is True or f.get("hypertensionMedication") is True,
    }
    flags = flags_of(age, v, info)
    for fl in flags:
        fl["reading"] = reading_of(fl["measurement"], v, info)
    withheld = withheld_of(age, age_conflict, v, hr_conflicts)
    out["flags"] = flags
    out["resultsWithheld"] = withheld

    if age is not None and age >= 18:
        out["bloodPressureCategory"] = info["bp_class"]
        if v["hr"] is not None:
            out["heartRateCategory"] = hr_category(v["hr"], v["irregular"])
        if v["rr"] is not None:
            out["breathingRateCategory"] = rr_category(v["rr"])
        if v["spo2"] is not None:
            out["oxygenSaturationCategory"] = spo2_category(v["spo2"])
        if hrv is not None:
            out["heartRateVariabilityCategory"] = hrv_category(hrv, measure)

    if withheld is None:
        c_rr = wellness(v["rr"], 8, 12, 20, 25)
        c_spo2 = line(v["spo2"], 90, 95)
        c_sys = wellness(v["sys"], 70, 90, 139, 180)
        c_hr = wellness(v["hr"], 30, 50, 100, 130)
        c_hrv = None if hrv is None else hrv_component(hrv, measure)
        c_bp = bp_component(v["sys"], v["dia"])
        adult20 = age >= 18  # the adult BMI and lipid tables are read for every adult

        def risk(key, fn, allowed=True):
            x = q(f.get(key))
            return fn(x) if allowed and x is not None else None

        c_bmi = bmi_component(bmi) if adult20 and bmi is not None else None
        c_tc = risk("riskTotalCholestrol", tc_component, adult20)
        c_ldl = risk("riskLdl", ldl_component, adult20)
        c_hdl = risk("riskHdl", hdl_component, adult20)
        c_tg = risk("riskTriglycerdies", tg_component, adult20)
        c_mets = risk("riskMetSComp", mets_component)
        c_cvd = risk("riskTenYrCvd", risk_component, 40 <= age <= 75)
        c_smoke = None if smoker is None else (F("0.2") if smoker else F(1))
        c_diab = None if f.get("diabetic") is None else (F("0.5") if f["diabetic"] else F(1))

        metabolism = weighted(2, [(c_bmi, 2), (c_tc, 1), (c_ldl, 1), (c_hdl, 1), (c_tg, 1), (c_mets, 2), (c_diab, 1)])
        equilibrium = weighted(2, [(c_rr, 1), (c_spo2, 1), (c_sys, 1), (c_hr, 1)])
        relaxation = weighted(1, [(c_hrv, 2), (c_hr, 1)]) if c_hrv is not None else None
        activity = weighted(1, [(c_hr, 2), (c_bmi, 1), (c_hrv, 1)])
        sleep = weighted(2, [(c_hrv, 1), (c_hr, 1), (c_rr, 1)])
        cardio = weighted(1, [(c_bp, 2), (c_cvd, 2), (c_smoke, 1)])
        frac = lambda s: None if s is None else s / 100
        overall = weighted(2, [(frac(cardio), 25), (frac(metabolism), 20), (frac(equilibrium), 20),
                               (frac(relaxation), 15), (frac(activity), 10), (frac(sleep), 10)])
        cap = min([CAP[fl["severity"]] for fl in flags], default=100)
        overall = min(overall, F(cap))
        # docs/scoring.md, "Knowing less never scores best": without the
        # metabolism score or the smoking status, at most 79.
        partial = (metabolism is None or c_smoke is None) and overall > 79
        if partial:
            overall = F(79)
        out["partial"] = partial
        credit = F(round_half_up(300 + F(550) * overall / 100))

        def capped(score, reads):
            """A sub-score capped by the flags about its own inputs."""
            c = min([CAP[fl["severity"]] for fl in flags if fl["measurement"] in reads], default=100)
            return None if score is None else min(score, F(c))
        metabolism = capped(metabolism, {"bmi", "tc", "ldl", "hdl", "tg", "mets", "diabetes"})
        equilibrium = capped(equilibrium, {"rr", "spo2", "bp", "hr", "rhythm", "combined"})
        relaxation = capped(relaxation, {"hr", "rhythm", "combined"})
        activity = capped(activity, {"hr", "rhythm", "bmi", "combined"})
        sleep = capped(sleep, {"hr", "rhythm", "rr", "combined"})
        for key, s in (("metabolismScore", metabolism), ("equilibriumScore", equilibrium), ("relaxationScore", relaxation),
                       ("activityScore", activity), ("sleepScore", sleep), ("overallHealthScore", overall)):
            out[key] = s
            if s is not None:
                out[key.replace("Score", "Category")] = score_band(s)
        out["healthCreditScore"] = credit
        out["healthCreditCategory"] = credit_band(credit)
        if relaxation is not None:
            out["stressIndex"] = stress(relaxation)

    red = [fl for fl in flags if fl["severity"] == "severe"]
    if red:
        out["overallHealthCategory"] = red[0]["text"]
        out["healthCreditCategory"] = red[0]["text"]
        field = {"bp": "bloodPressureCategory", "hr": "heartRateCategory", "rhythm": "heartRateCategory",
                 "rr": "breathingRateCategory", "spo2": "oxygenSaturationCategory"}
        for fl in reversed(red):  # the first of each measurement wins
            if fl["measurement"] in field:
                out[field[fl["measurement"]]] = fl["text"]
    return out


CAVEATS = ["camera-estimate", "not-a-diagnosis", "adults-only", "not-for-pregnancy", "red-flag-see-a-clinician"]


CHECKED = [
    "healthCreditScore", "systolicBloodPressure", "diastolicBloodPressure", "heartRateBpm", "heartRateVariabilityMs",
    "breathingRateBpm", "oxygenSaturationPercent", "weight", "age", "activityScore", "sleepScore", "equilibriumScore",
    "metabolismScore", "overallHealthScore", "relaxationScore", "healthCreditCategory", "bloodPressureCategory",
    "heartRateCategory", "heartRateVariabilityCategory", "breathingRateCategory", "oxygenSaturationCategory",
    "activityCategory", "sleepCategory", "equilibriumCategory", "metabolismCategory", "overallHealthCategory",
    "relaxationCategory", "stressIndex", "height", "smokerStatus",
]


def same(want, got):
    if want is None or got is None:
        return want is None and got is None
    if isinstance(want, str):
        return want == got
    return abs(float(want) - float(got)) < 1e-9


def check_additive(name, want, got):
    """The additive fields: flags, resultsWithheld, caveats, model."""
    problems = []
    got_flags = [(x["code"], x["severity"], x["interpretation"], x["seeClinician"], x["text"], x["reading"]) for x in got["flags"]]
    want_flags = [(x["code"], x["severity"], x["interpretation"], x["seeClinician"], x["text"], x["reading"]) for x in want["flags"]]
    if got_flags != want_flags:
        problems.append(f"{name}: flags = {got_flags!r}, docs/scoring.md gives {want_flags!r}")
    if any(not x["guideline"] for x in got["flags"]):
        problems.append(f"{name}: a flag without its guideline")
    w, g = want["resultsWithheld"], got["resultsWithheld"]
    if (w is None) != (g is None) or w is not None and (w["reason"] != g["reason"] or w["fields"] != g["fields"] or not g["text"]):
        problems.append(f"{name}: resultsWithheld = {g!r}, docs/scoring.md gives {w!r}")
    want_caveats = CAVEATS + (["partial-risk-picture"] if want.get("partial") else [])
    if [c["code"] for c in got["caveats"]] != want_caveats or any(not c["text"] for c in got["caveats"]):
        problems.append(f"{name}: caveats = {got['caveats']!r}")
    if got["model"] != MODEL:
        problems.append(f"{name}: model = {got['model']!r}")
    return problems


def main():
    with open(os.path.join(HERE, "cases.json")) as fh:
        cases = json.load(fh)["cases"]
    problems = []
    for case in cases:
        path = os.path.join(HERE, "golden", case["name"] + ".json")
        with open(path) as fh:
            golden = json.load(fh)
        if golden["model"] != MODEL:
            problems.append(f"{case['name']}: model {golden['model']}, want {MODEL}")
        want = expected(case)
        got = golden["sensitive"]
        for key in CHECKED:
            if not same(want[key], got[key]):
                w = want[key] if want[key] is None or isinstance(want[key], str) else float(want[key])
                problems.append(f"{case['name']}: {key} = {got[key]!r}, docs/scoring.md gives {w!r}")
        problems += check_additive(case["name"], want, got)
        ns_dob, want_dob = golden["nonSensitive"]["dateOfBirth"], birth_date_of(case["fields"], completed_of(case))
        if ns_dob != want_dob:
            problems.append(f"{case['name']}: nonSensitive dateOfBirth = {ns_dob!r}, want {want_dob!r}")
        ns_age = golden["nonSensitive"]["age"]
        if not same(want["age"], ns_age):
            problems.append(f"{case['name']}: nonSensitive age = {ns_age!r}, want {want['age']}")
        for key in ("activityScoreMax", "sleepScoreMax", "equilibriumScoreMax", "metabolismScoreMax",
                    "overallHealthScoreMax", "relaxationScoreMax"):
            if got[key] != 100:
                problems.append(f"{case['name']}: {key} = {got[key]!r}, want 100")
    for line_ in problems:
        print(line_)
    print(f"{len(cases)} golden vectors checked against docs/scoring.md: {len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
