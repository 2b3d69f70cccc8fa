package intake

import (
	"fmt"
	"golang.org/x/text/unicode/norm"
	"math"
	"net/mail"
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
)

// coerce reads raw as a value of field f. The returned message, when not empty, says what is wrong without
// repeating the value. skip reports an empty string: "not given".
func coerce(f *Field, raw value, today time.Time) (v any, skip bool, msg string) {
	switch f.Kind {
	case KindNumber:
		n, msg := number(raw)
		if msg != "" {
			return nil, false, msg
		}
		if n < f.Min || n > f.Max {
			return nil, false, fmt.Sprintf("must be between %s and %s", fmtNum(f.Min), fmtNum(f.Max))
		}
		return n, false, ""
	case KindBool:
		b, msg := boolean(raw)
		return b, false, msg
	}
	s, msg := text(raw)
	if msg != "" {
		return nil, false, msg
	}
	if s == "" {
		return nil, true, ""
	}
	switch f.Kind {
	case KindUUID:
		return patientUUID(s)
	case KindEmail:
		msg = email(s)
	case KindDate:
		msg = date(s, today)
	case KindIP:
		if _, err := netip.ParseAddr(s); err != nil {
			msg = "must be an IPv4 or IPv6 address"
		}
	}
	if msg == "" && f.MaxLen > 0 && utf8.RuneCountInString(s) > f.MaxLen {
		msg = fmt.Sprintf("must be at most %d characters", f.MaxLen)
	}
	if msg != "" {
		return nil, false, msg
	}
	return s, false, ""
}

// number accepts a JSON number or a string holding a decimal number.
func number(raw value) (float64, string) {
	var s string
	switch raw.kind {
	case '0':
		s = string(raw.raw)
	case '"':
		t, _ := raw.str()
		s = strings.TrimSpace(t)
		if !isDecimal(s) {
			return 0, "must be a number"
		}
	default:
		return 0, "must be a number"
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
		return 0, "must be a finite number"
	}
	return n, ""
}

// isDecimal reports whether s is -?digits(.digits)?(e[+-]?digits)?, so that
// strconv's hexadecimal, "Inf", "NaN" and underscore forms are refused.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if digits() == 0 {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// boolean accepts true/false, the strings true false yes no 1 0 in any case,
// and the numbers 1 and 0.
func boolean(raw value) (bool, string) {
	const msg = "must be true or false"
	switch raw.kind {
	case 't':
		return true, ""
	case 'f':
		return false, ""
	case '0':
		switch f, err := strconv.ParseFloat(string(raw.raw), 64); {
		case err == nil && f == 1:
			return true, ""
		case err == nil && f == 0:
			return false, ""
		}
	case '"':
		t, _ := raw.str()
		switch strings.ToLower(strings.TrimSpace(t)) {
		case "true", "yes", "1":
			return true, ""
		case "false", "no", "0":
			return false, ""
		}
	}
	return false, msg
}

// text accepts a string, or a number kept as its decimal text.
func text(raw value) (string, string) {
	const badText = "must not contain control characters or invalid UTF-8"
	var s string
	switch raw.kind {
	case '"':
		t, ok := raw.str()
		if !ok {
			return "", badText
		}
		s = strings.TrimSpace(t)
	case '0':
		return string(raw.raw), ""
	default:
		return "", "must be a string"
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return "", badText
		}
		if s[i] >= 0x80 { // rare: check the runes of non-ASCII text
			for _, r := range s[i:] {
				if unicode.IsControl(r) {
					return "", badText
				}
			}
			break
		}
	}
	return s, ""
}

func patientUUID(s string) (any, bool, string) {
	// uuid.Parse also takes braces, urn: and unhyphenated forms; the contract
	// takes the RFC 4122 text form only.
	if len(s) != 36 {
		return nil, false, "must be a UUID in 8-4-4-4-12 hexadecimal form"
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return nil, false, "must be a UUID in 8-4-4-4-12 hexadecimal form"
	}
	if u == uuid.Nil {
		return nil, false, "must not be the nil UUID"
	}
	return u.String(), false, ""
}

func email(s string) string {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || strings.Count(s, "@") != 1 {
		return "must be a single email address"
	}
	if !norm.NFKC.IsNormalString(s) {
		// A Kelvin sign, fullwidth letters, ligatures: look-alikes that
		// would otherwise find another address's record.
		return "must not contain compatibility characters (such as fullwidth letters or a Kelvin sign)"
	}
	return ""
}

// oldestBirth bounds dateOfBirth the way the age range bounds age.
const oldestBirth = 130

func date(s string, today time.Time) string {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return "must be a calendar date in YYYY-MM-DD form"
	}
	y, m, dd := today.Date()
	end := time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
	if d.After(end) {
		return "must not be in the future"
	}
	if d.Before(end.AddDate(-oldestBirth, 0, 0)) {
		return fmt.Sprintf("must be within the last %d years", oldestBirth)
	}
	return ""
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
