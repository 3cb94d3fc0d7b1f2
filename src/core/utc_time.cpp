/*
 * utc_time.cpp: see utc_time.hpp.
 */
#include "core/utc_time.hpp"

#include <cstring>

#include "core/cpp_only.hpp"

namespace idgen {

/* Howard Hinnant's days_from_civil, valid for the whole proleptic calendar. */
int64_t
days_from_civil(int64_t y, unsigned m, unsigned d) noexcept
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = static_cast<unsigned>(y - era * 400);
	const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

static bool
is_leap(int64_t y) noexcept
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

/* Reads exactly n digits at *p into *out and advances *p. */
static bool
read_digits(const char **p, int n, int64_t *out) noexcept
{
	int64_t		v = 0;

	for (int i = 0; i < n; i++)
	{
		char		c = (*p)[i];

		if (c < '0' || c > '9')
			return false;
		v = v * 10 + (c - '0');
	}
	*p += n;
	*out = v;
	return true;
}

bool
parse_utc_timestamp(const char *text, int64_t *ms) noexcept
{
	static const unsigned mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	const char *p = text;
	int64_t		year, month, day, hour = 0, minute = 0, second = 0, frac = 0;

	if (text == nullptr)
		return false;
	if (!read_digits(&p, 4, &year) || *p++ != '-' ||
		!read_digits(&p, 2, &month) || *p++ != '-' ||
		!read_digits(&p, 2, &day))
		return false;
	if (month < 1 || month > 12 || day < 1)
		return false;
	if (day > mdays[month - 1] + (month == 2 && is_leap(year) ? 1 : 0))
		return false;

	if (*p == 'T' || *p == ' ')
	{
		p++;
		if (!read_digits(&p, 2, &hour) || *p++ != ':' || !read_digits(&p, 2, &minute))
			return false;
		if (*p == ':')
		{
			p++;
			if (!read_digits(&p, 2, &second))
				return false;
			if (*p == '.')
			{
				int			digits = 0;

				p++;
				while (*p >= '0' && *p <= '9')
				{
					if (digits < 3)
						frac = frac * 10 + (*p - '0');
					digits++;
					p++;
				}
				if (digits == 0)
					return false;
				for (; digits < 3; digits++)
					frac *= 10;
			}
		}
		if (hour > 23 || minute > 59 || second > 59)
			return false;
	}

	if (*p == ' ')
		p++;
	if (*p != '\0' && strcmp(p, "Z") != 0 && strcmp(p, "UTC") != 0 &&
		strcmp(p, "+00") != 0 && strcmp(p, "+00:00") != 0 && strcmp(p, "+0000") != 0)
		return false;

	*ms = ((days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 24 + hour) * 60 + minute) * 60000
		+ second * 1000 + frac;
	return true;
}

}  // namespace idgen
