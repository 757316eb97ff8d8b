-- A test sent, found by the partner_interview_id the partner answered (the kit's report id): how a
-- script reads its status (GET /_mock/platforms/greenhouse/reports/{id}).
CREATE INDEX IF NOT EXISTS greenhouse_tests_by_interview ON greenhouse_take_home_tests(partner_interview_id);
