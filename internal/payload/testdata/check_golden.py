#!/usr/bin/env python3
"""Recompute every golden payload from docs/scoring.md, independently of pads.

For each case of cases.json this script applies the rules of
docs/scoring.md (pads-score-2) as written there, with nothing taken from
the Go code, and compares the measurements, categories and scores it gets
with testdata/golden/<name>.json. It prints one line per difference and
exits 1 if there is any.

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
MODEL = "pads-score-2"
# golden_test.go builds every payload at this time (the "made at" time used
# for the age when the assessment has no completion time).
MADE_AT = datetime.date(2026, 11, 22)


def q(x):
    """An exact fraction of a JSON number (or None)."""
    return None if x is None else F(str(x))


def round_half_up(x):
    return math.floor(x + F(1, 2))


# --- Inputs (docs/scoring.md, "Inputs of the model") -----------------------


def age_of(f, completed):
    if f.get("age") is not None:
        return q(f["age"])
    if f.get("dateOfBirth") is None:
        return None
    born = datetime.date.fromisoformat(f["dateOfBirth"])
    at = completed or MADE_AT
    years = at.year - born.year - ((at.month, at.day) < (born.month, born.day))
    return F(years) if years >= 0 else None


def heart_rate_of(f):
    if f.get("heartRateBpm") is not None:
        return q(f["heartRateBpm"])
    if f.get("riskRestingHeartRate") is not None:
        return q(f["riskRestingHeartRate"])
    if f.get("ibi") is not None:
        # 60000 / ibi rounded to 0.1 bpm
        return F(round_half_up(F(60000) / q(f["ibi"]) * 10), 10)
    return None


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


def height_of(f):
    """Inches from the first plausible source, or None."""
    ft, inch, cm = q(f.get("heightFt")), q(f.get("heightIn")), q(f.get("heightCm"))
    if ft is not None:
        total = ft * 12 + (inch or 0)
        if 0 < total <= 96:
            return total
    elif inch is not None and 36 <= inch <= 96:
        return inch
    if cm is not None and cm > 0:
        return cm / F("2.54")
    return None


def body_of(f):
    """(weight in lb as shown, height in inches, BMI) after plausibility."""
    lb, kg = q(f.get("weightLb")), q(f.get("weightKg"))
    if lb is not None:
        weight_kg, weight_lb = lb * KG_PER_LB, lb
    elif kg is not None:
        weight_kg, weight_lb = kg, kg * LB_PER_KG
    else:
        weight_kg = weight_lb = None
    height = height_of(f)
    if weight_kg is not None and height is not None and not plausible_bmi(bmi_of(weight_kg, height)):
        weight_kg = weight_lb = height = None
    bmi = None
    risk = q(f.get("riskBmi"))
    if risk is not None and plausible_bmi(risk):
        bmi = risk
    elif weight_kg is not None and height is not None:
        bmi = bmi_of(weight_kg, height)
    return weight_lb, height, bmi


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
FLAGS = [
    # (label, ages: "every" | minimum age, shown in, test)
    (RED.format("SpO2 below 90%"), "every", "spo2", lambda v: v["spo2"] is not None and v["spo2"] < 90),
    (RED.format("blood pressure above 180/120"), "every", "bp",
     lambda v: (v["sys"] is not None and v["sys"] > 180) or (v["dia"] is not None and v["dia"] > 120)),
    (RED.format("blood pressure below 90/60"), 18, "bp",
     lambda v: (v["sys"] is not None and v["sys"] < 90) or (v["dia"] is not None and v["dia"] < 60)),
    (RED.format("irregular heartbeats with a rate outside 50-100"), 18, "hr",
     lambda v: v["irregular"] and v["hr"] is not None and (v["hr"] < 50 or v["hr"] > 100)),
    (RED.format("resting heart rate below 40"), 18, "hr", lambda v: v["hr"] is not None and v["hr"] < 40),
    (RED.format("resting heart rate above 130"), 18, "hr", lambda v: v["hr"] is not None and v["hr"] > 130),
    (RED.format("breathing rate scores 3 on NEWS2"), 16, "rr", lambda v: pts(v["rr"], news2_resp) == 3),
    (RED.format("SpO2 scores 3 on NEWS2"), 16, "spo2", lambda v: pts(v["spo2"], news2_spo2) == 3),
    (RED.format("systolic pressure scores 3 on NEWS2"), 16, "bp", lambda v: pts(v["sys"], news2_sys) == 3),
    (RED.format("heart rate scores 3 on NEWS2"), 16, "hr", lambda v: pts(v["hr"], news2_pulse) == 3),
    (RED.format("NEWS2 total of 5 or more"), 16, None,
     lambda v: pts(v["rr"], news2_resp) + pts(v["spo2"], news2_spo2) + pts(v["sys"], news2_sys) + pts(v["hr"], news2_pulse) >= 5),
]


def red_flags(age, v):
    raised = []
    for label, ages, shown, test in FLAGS:
        applies = ages == "every" or (age is not None and age >= ages)
        if applies and test(v):
            raised.append((label, shown))
    return raised


# --- Categories ------------------------------------------------------------


def bp_category(s, d):
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


def expected(case):
    f = case["fields"]
    completed = case.get("assessmentCompletedAt")
    completed = datetime.date.fromisoformat(completed[:10]) if completed else None
    age = age_of(f, completed)
    hr = heart_rate_of(f)
    hrv, measure = hrv_of(f)
    weight_lb, height_in, bmi = body_of(f)
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
    })
    v = {
        "sys": whole(q(f.get("systolicBloodPressureMmhg"))), "dia": whole(q(f.get("diastolicBloodPressureMmhg"))),
        "hr": whole(hr), "rr": whole(q(f.get("breathingRateBpm"))), "spo2": whole(q(f.get("oxygen"))),
        "irregular": f.get("irregularHeartBeats") is True,
    }
    flags = red_flags(age, v)

    if age is not None and age >= 18:
        if v["sys"] is not None and v["dia"] is not None:
            out["bloodPressureCategory"] = bp_category(v["sys"], v["dia"])
        if v["hr"] is not None:
            out["heartRateCategory"] = hr_category(v["hr"], v["irregular"])
        if v["rr"] is not None:
            out["breathingRateCategory"] = rr_category(v["rr"])
        if v["spo2"] is not None:
            out["oxygenSaturationCategory"] = spo2_category(v["spo2"])
        if hrv is not None:
            out["heartRateVariabilityCategory"] = hrv_category(hrv, measure)

        c_rr = None if v["rr"] is None else wellness(v["rr"], 8, 12, 20, 25)
        c_spo2 = None if v["spo2"] is None else line(v["spo2"], 90, 95)
        c_sys = None if v["sys"] is None else wellness(v["sys"], 70, 90, 139, 180)
        c_hr = None if v["hr"] is None else wellness(v["hr"], 30, 50, 100, 130)
        c_hrv = None if hrv is None else hrv_component(hrv, measure)
        c_bp = None if v["sys"] is None or v["dia"] is None else bp_component(v["sys"], v["dia"])
        adult20 = age >= 20

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
        c_smoke = None if f.get("smoker") is None else (F("0.2") if f["smoker"] else F(1))
        c_diab = None if f.get("diabetic") is None else (F("0.5") if f["diabetic"] else F(1))

        metabolism = weighted(2, [(c_bmi, 2), (c_tc, 1), (c_ldl, 1), (c_hdl, 1), (c_tg, 1), (c_mets, 2), (c_diab, 1)])
        equilibrium = weighted(2, [(c_rr, 1), (c_spo2, 1), (c_sys, 1), (c_hr, 1)])
        relaxation = weighted(1, [(c_hrv, 2), (c_hr, 1)]) if c_hrv is not None else None
        activity = weighted(1, [(c_hr, 2), (c_bmi, 1), (c_hrv, 1)]) if c_hr is not None else None
        sleep = weighted(2, [(c_hrv, 1), (c_hr, 1), (c_rr, 1)])
        cardio = weighted(1, [(c_bp, 2), (c_cvd, 2), (c_smoke, 1)])
        frac = lambda s: None if s is None else s / 100
        overall = weighted(2, [(frac(cardio), 25), (frac(metabolism), 20), (frac(equilibrium), 20),
                               (frac(relaxation), 15), (frac(activity), 10), (frac(sleep), 10)])
        if flags and overall is not None and overall > 39:
            overall = F(39)
        for key, s in (("metabolismScore", metabolism), ("equilibriumScore", equilibrium), ("relaxationScore", relaxation),
                       ("activityScore", activity), ("sleepScore", sleep), ("overallHealthScore", overall)):
            out[key] = s
            if s is not None:
                out[key.replace("Score", "Category")] = score_band(s)
        if overall is not None:
            credit = F(round_half_up(300 + F(550) * overall / 100))
            out["healthCreditScore"] = credit
            out["healthCreditCategory"] = credit_band(credit)
        if relaxation is not None:
            out["stressIndex"] = stress(relaxation)

    if flags:
        out["overallHealthCategory"] = flags[0][0]
        out["healthCreditCategory"] = flags[0][0]
        field = {"bp": "bloodPressureCategory", "hr": "heartRateCategory", "rr": "breathingRateCategory",
                 "spo2": "oxygenSaturationCategory"}
        for label, shown in reversed(flags):  # the first of each measurement wins
            if shown is not None:
                out[field[shown]] = label
    return out


CHECKED = [
    "healthCreditScore", "systolicBloodPressure", "diastolicBloodPressure", "heartRateBpm", "heartRateVariabilityMs",
    "breathingRateBpm", "oxygenSaturationPercent", "weight", "age", "activityScore", "sleepScore", "equilibriumScore",
    "metabolismScore", "overallHealthScore", "relaxationScore", "healthCreditCategory", "bloodPressureCategory",
    "heartRateCategory", "heartRateVariabilityCategory", "breathingRateCategory", "oxygenSaturationCategory",
    "activityCategory", "sleepCategory", "equilibriumCategory", "metabolismCategory", "overallHealthCategory",
    "relaxationCategory", "stressIndex", "height",
]


def same(want, got):
    if want is None or got is None:
        return want is None and got is None
    if isinstance(want, str):
        return want == got
    return abs(float(want) - float(got)) < 1e-9


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
