/** `resolveTzid` (issue 25): the TZIDs of files without their VTIMEZONE, resolved to IANA zones. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveTzid } from '../../src/import/windows-zones.js';

describe('resolveTzid', () => {
  it('takes IANA names as written', () => {
    assert.deepEqual(resolveTzid('America/New_York'), { zone: 'America/New_York', via: 'IANA' });
    assert.equal(resolveTzid('US/Central')?.zone, 'US/Central');
  });
  it('finds an IANA name behind a producer prefix (old Thunderbird, libical)', () => {
    assert.equal(resolveTzid('/mozilla.org/20050126_1/Europe/Berlin')?.zone, 'Europe/Berlin');
    assert.equal(resolveTzid('/freeassociation.sourceforge.net/Tzfile/America/Los_Angeles')?.zone, 'America/Los_Angeles');
  });
  it("maps Windows names and display names through CLDR's windowsZones (territory 001)", () => {
    assert.deepEqual(resolveTzid('W. Europe Standard Time'), { zone: 'Europe/Berlin', via: 'Windows (CLDR)' });
    assert.equal(resolveTzid('Eastern Standard Time')?.zone, 'America/New_York');
    assert.equal(resolveTzid('"Pacific Standard Time"')?.zone, 'America/Los_Angeles');
    assert.equal(resolveTzid('India Standard Time')?.zone, 'Asia/Calcutta');
    assert.equal(resolveTzid('(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna')?.zone, 'Europe/Berlin');
    assert.equal(resolveTzid('(UTC-05:00) Eastern Time (US and Canada)')?.zone, 'America/New_York');
    assert.equal(resolveTzid('(GMT+10:00) Canberra, Melbourne, Sydney')?.zone, 'Australia/Sydney');
  });
  it('answers undefined for names known nowhere', () => {
    assert.equal(resolveTzid('Mars/Olympus'), undefined);
    assert.equal(resolveTzid('Customized Time Zone'), undefined);
    assert.equal(resolveTzid(''), undefined);
  });
});
