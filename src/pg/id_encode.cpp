/*
 * id_encode.cpp: id_encode() and id_decode(), the keyed permutation of
 * public ids (src/core/id_permute.cpp), with the key given as an argument
 * or taken from the superuser-only setting id_gen.encode_key.
 *
 * The key schedule (a dozen SipHash calls) is cached per call site in
 * fn_extra, keyed by the secret's bytes, so a query that encodes a million
 * ids with one key derives it once; a call then costs the Feistel rounds.
 * Nothing in the core allocates or throws, so these wrappers call it
 * directly, without idgen_guard(), as timeuuid.cpp does.
 */
#include "pg/pg.hpp"
#include "pg/compat.hpp"
#include "pg/guc.hpp"

#include "core/id_permute.hpp"

namespace pm = idgen::permute;

/* Per call site: the last secret seen and the keys derived from it. */
typedef struct EncodeCache
{
	char	   *secret;			/* in fn_mcxt; NULL before the first call */
	int			len;
	bool		derived[2];		/* [0]: bigint domain, [1]: JavaScript-safe */
	pm::Key		keys[2];
} EncodeCache;

static const pm::Key *
encode_key(FunctionCallInfo fcinfo, const char *secret, int len, bool js_safe)
{
	EncodeCache *c = static_cast<EncodeCache *>(fcinfo->flinfo->fn_extra);
	int			d = js_safe ? 1 : 0;

	if (c == nullptr)
	{
		c = static_cast<EncodeCache *>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(EncodeCache)));
		fcinfo->flinfo->fn_extra = c;
	}
	if (c->secret == nullptr || c->len != len || memcmp(c->secret, secret, len) != 0)
	{
		if (c->secret != nullptr)
			pfree(c->secret);
		c->secret = static_cast<char *>(MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, len > 0 ? len : 1));
		memcpy(c->secret, secret, len);
		c->len = len;
		c->derived[0] = c->derived[1] = false;
	}
	if (!c->derived[d])
	{
		(void) pm::make_key(reinterpret_cast<const uint8_t *>(secret), static_cast<size_t>(len),
							js_safe ? pm::kJsSafeMax : pm::kBigintMax, &c->keys[d]);
		c->derived[d] = true;
	}
	return &c->keys[d];
}

/* The id, checked against the domain; ERROR 22003 outside it. */
static uint64
domain_value(int64 id, bool js_safe, const char *fname)
{
	uint64		max = js_safe ? pm::kJsSafeMax : pm::kBigintMax;

	if (id < 1 || static_cast<uint64>(id) > max)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s(): %lld is outside the domain [1, %llu]", fname, (long long) id,
						(unsigned long long) max),
				 js_safe ? errdetail("With js_safe the domain is the integers JavaScript represents exactly (2^53 - 1 at most).")
				 : errdetail("The domain is every positive bigint.")));
	return static_cast<uint64>(id);
}

static Datum
encode_or_decode(FunctionCallInfo fcinfo, const char *secret, int len, bool js_safe,
				 bool decode, const char *fname)
{
	uint64		x = domain_value(PG_GETARG_INT64(0), js_safe, fname);
	const pm::Key *key;

	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s(): the key must not be empty", fname)));
	key = encode_key(fcinfo, secret, len, js_safe);
	PG_RETURN_INT64(static_cast<int64>(decode ? pm::decode(*key, x) : pm::encode(*key, x)));
}

/* The secret of id_gen.encode_key; ERROR 55000 while it is not set. */
static const char *
setting_secret(const char *fname, int *len)
{
	if (idgen_encode_key == nullptr || idgen_encode_key[0] == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s(): id_gen.encode_key is not set", fname),
				 errhint("A superuser sets it in postgresql.conf or with ALTER SYSTEM SET id_gen.encode_key = '...', "
						 "then reloads; or pass the key as an argument.")));
	*len = static_cast<int>(strlen(idgen_encode_key));
	return idgen_encode_key;
}

/* id_encode(id bigint, key text, js_safe boolean) → bigint */
IDGEN_FUNCTION(id_encode)
{
	text	   *key = PG_GETARG_TEXT_PP(1);

	return encode_or_decode(fcinfo, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), PG_GETARG_BOOL(2),
							false, "id_encode");
}

/* id_decode(id bigint, key text, js_safe boolean) → bigint */
IDGEN_FUNCTION(id_decode)
{
	text	   *key = PG_GETARG_TEXT_PP(1);

	return encode_or_decode(fcinfo, VARDATA_ANY(key), VARSIZE_ANY_EXHDR(key), PG_GETARG_BOOL(2),
							true, "id_decode");
}

/* id_encode(id bigint, js_safe boolean) → bigint, with id_gen.encode_key */
IDGEN_FUNCTION(id_encode_setting)
{
	int			len;
	const char *secret = setting_secret("id_encode", &len);

	return encode_or_decode(fcinfo, secret, len, PG_GETARG_BOOL(1), false, "id_encode");
}

/* id_decode(id bigint, js_safe boolean) → bigint, with id_gen.encode_key */
IDGEN_FUNCTION(id_decode_setting)
{
	int			len;
	const char *secret = setting_secret("id_decode", &len);

	return encode_or_decode(fcinfo, secret, len, PG_GETARG_BOOL(1), true, "id_decode");
}
