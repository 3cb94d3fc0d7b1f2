/*
 * node_identity.cpp: the precedence rules of a node's worker id and launch
 * id (see node_identity.hpp), pure so that the unit tests pin them.
 */
#include "core/node_identity.hpp"
#include "core/cpp_only.hpp"

namespace idgen {
namespace node_identity {

Resolved
resolve_worker(int setting, bool on_citus, int64_t group, int32_t max_worker) noexcept
{
	if (setting >= 0)
	{
		if (setting > max_worker)
			return {0, Source::Setting, Status::OutOfRange};
		return {static_cast<int32_t>(setting), Source::Setting, Status::Ok};
	}
	if (on_citus)
	{
		if (group < 0 || group > max_worker)
			return {0, Source::CitusGroup, Status::OutOfRange};
		return {static_cast<int32_t>(group), Source::CitusGroup, Status::Ok};
	}
	return {0, Source::Default, Status::Ok};
}

Resolved
resolve_launch(int setting, bool on_citus, int64_t group, int32_t max_launch) noexcept
{
	if (setting >= 0)
	{
		if (setting > max_launch)
			return {0, Source::Setting, Status::OutOfRange};
		return {static_cast<int32_t>(setting), Source::Setting, Status::Ok};
	}
	if (on_citus)
	{
		if (group < 0 || group > static_cast<int64_t>(max_launch) - 1)
			return {0, Source::CitusGroup, Status::OutOfRange};
		return {static_cast<int32_t>(group + 1), Source::CitusGroup, Status::Ok};
	}
	return {0, Source::Unset, Status::Unset};
}

const char *
source_name(Source source) noexcept
{
	switch (source)
	{
		case Source::Setting:
			return "setting";
		case Source::CitusGroup:
			return "citus group";
		case Source::Default:
			return "default";
		case Source::Unset:
			return "unset";
	}
	return "unset";
}

}  // namespace node_identity
}  // namespace idgen
