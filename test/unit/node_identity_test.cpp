/*
 * Unit tests for a node's identity: an explicit setting wins, a Citus group
 * is used when nothing is set, a group the field cannot hold is refused,
 * never wrapped onto another group's bits.
 */
#include "core/node_identity.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace idgen::node_identity;

TEST(NodeIdentity, SettingWinsOverCitusGroup)
{
	Resolved	r = resolve_worker(7, true, 3, 1023);

	EXPECT_EQ(r.status, Status::Ok);
	EXPECT_EQ(r.source, Source::Setting);
	EXPECT_EQ(r.id, 7);
	r = resolve_launch(5, true, 3, 99999);
	EXPECT_EQ(r.status, Status::Ok);
	EXPECT_EQ(r.source, Source::Setting);
	EXPECT_EQ(r.id, 5);
	/* an explicit 0 is a setting too, not "automatic" */
	r = resolve_worker(0, true, 3, 1023);
	EXPECT_EQ(r.source, Source::Setting);
	EXPECT_EQ(r.id, 0);
	r = resolve_launch(0, true, 3, 99999);
	EXPECT_EQ(r.source, Source::Setting);
	EXPECT_EQ(r.id, 0);
}

TEST(NodeIdentity, SingleServerNeedsNoSetting)
{
	Resolved	r = resolve_worker(kAutomatic, false, 0, 1023);

	EXPECT_EQ(r.status, Status::Ok);
	EXPECT_EQ(r.source, Source::Default);
	EXPECT_EQ(r.id, 0);
	/* decimal_id keeps refusing without a launch id outside Citus */
	r = resolve_launch(kAutomatic, false, 0, 99999);
	EXPECT_EQ(r.status, Status::Unset);
	EXPECT_EQ(r.source, Source::Unset);
}

TEST(NodeIdentity, CitusGroupsGetDistinctIds)
{
	std::set<int32_t> workers, launches;

	for (int64_t g = 0; g <= 1023; g++)
	{
		Resolved	w = resolve_worker(kAutomatic, true, g, 1023);
		Resolved	l = resolve_launch(kAutomatic, true, g, 99999);

		ASSERT_EQ(w.status, Status::Ok);
		ASSERT_EQ(w.source, Source::CitusGroup);
		ASSERT_EQ(l.status, Status::Ok);
		ASSERT_GE(l.id, 1) << "launch id 0 is for tests only";
		workers.insert(w.id);
		launches.insert(l.id);
	}
	EXPECT_EQ(workers.size(), 1024u);
	EXPECT_EQ(launches.size(), 1024u);
	EXPECT_EQ(resolve_launch(kAutomatic, true, 0, 99999).id, 1);
	EXPECT_EQ(resolve_launch(kAutomatic, true, 99998, 99999).id, 99999);
}

TEST(NodeIdentity, GroupPastTheFieldIsRefusedNotWrapped)
{
	EXPECT_EQ(resolve_worker(kAutomatic, true, 1024, 1023).status, Status::OutOfRange);
	EXPECT_EQ(resolve_worker(kAutomatic, true, 16, 15).status, Status::OutOfRange);
	EXPECT_EQ(resolve_worker(kAutomatic, true, 15, 15).status, Status::Ok);
	EXPECT_EQ(resolve_worker(kAutomatic, true, INT64_C(1) << 40, 1023).status, Status::OutOfRange);
	EXPECT_EQ(resolve_worker(kAutomatic, true, -1, 1023).status, Status::OutOfRange);
	EXPECT_EQ(resolve_launch(kAutomatic, true, 99999, 99999).status, Status::OutOfRange);
	EXPECT_EQ(resolve_launch(kAutomatic, true, -1, 99999).status, Status::OutOfRange);
	/* an explicit worker id that a narrower layout cannot hold */
	Resolved	r = resolve_worker(17, true, 1, 15);

	EXPECT_EQ(r.status, Status::OutOfRange);
	EXPECT_EQ(r.source, Source::Setting);
}

TEST(NodeIdentity, SourceNames)
{
	EXPECT_STREQ(source_name(Source::Setting), "setting");
	EXPECT_STREQ(source_name(Source::CitusGroup), "citus group");
	EXPECT_STREQ(source_name(Source::Default), "default");
	EXPECT_STREQ(source_name(Source::Unset), "unset");
}
