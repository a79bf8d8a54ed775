import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { extract } from "../../src/detection/read/index.js";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/sites/${name}`, import.meta.url), "utf8");
const html = (body: string, url = "https://www.heliolytics.io/careers") =>
  extract(body, { url, contentType: "text/html", fetchMethod: "http" });

const V1_JOBS = [
  {
    key: "HL-ENG-101",
    title: "Senior Backend Engineer",
    location: "Berlin, BE, DE",
    department: "Engineering",
    url: "https://www.heliolytics.io/careers/senior-backend-engineer",
    origin: "jsonld",
  },
  {
    key: "HL-DES-204",
    title: "Product Designer",
    location: "Remote",
    department: "Design",
    url: "https://www.heliolytics.io/careers/product-designer",
    origin: "jsonld",
  },
  {
    key: "HL-SAL-310",
    title: "Account Executive, Mid-Market",
    location: "New York, NY, US",
    department: "Sales",
    url: "https://www.heliolytics.io/careers/account-executive-mid-market",
    origin: "jsonld",
  },
  {
    // No identifier: the URL is the key.
    key: "https://www.heliolytics.io/careers/customer-success-manager",
    title: "Customer Success Manager",
    location: "London, GB",
    department: "Customer Success",
    url: "https://www.heliolytics.io/careers/customer-success-manager",
    origin: "jsonld",
  },
  {
    key: "HL-ENG-115",
    title: "Data Engineer",
    location: "Berlin, DE / Remote",
    department: "Engineering",
    url: "https://www.heliolytics.io/careers/data-engineer",
    origin: "jsonld",
  },
];

describe("jobs from JSON-LD JobPosting", () => {
  it("reads the JobPosting array of careers-v1 (and ignores the visible list that repeats it)", () => {
    expect(html(fixture("careers-v1.html")).jobs).toEqual(V1_JOBS);
  });

  it("sees three new engineering roles and one closed sales role in careers-v2", () => {
    const before = html(fixture("careers-v1.html")).jobs;
    const after = html(fixture("careers-v2.html")).jobs;
    const beforeKeys = new Set(before.map((job) => job.key));
    const afterKeys = new Set(after.map((job) => job.key));
    expect(after.filter((job) => !beforeKeys.has(job.key))).toEqual([
      {
        key: "HL-ENG-121",
        title: "Staff Frontend Engineer",
        location: "Remote",
        department: "Engineering",
        url: "https://www.heliolytics.io/careers/staff-frontend-engineer",
        origin: "jsonld",
      },
      {
        key: "HL-ENG-122",
        title: "Site Reliability Engineer",
        location: "Berlin, BE, DE",
        department: "Engineering",
        url: "https://www.heliolytics.io/careers/site-reliability-engineer",
        origin: "jsonld",
      },
      {
        key: "HL-ENG-123",
        title: "Engineering Manager, Data Platform",
        location: "Amsterdam, NH, NL",
        department: "Engineering",
        url: "https://www.heliolytics.io/careers/engineering-manager-data-platform",
        origin: "jsonld",
      },
    ]);
    expect(before.filter((job) => !afterKeys.has(job.key)).map((job) => job.title)).toEqual([
      "Account Executive, Mid-Market",
    ]);
    // Jobs present in both are read identically, so they do not show up as changed.
    for (const job of after.filter((j) => beforeKeys.has(j.key))) {
      expect(before.find((j) => j.key === job.key)).toEqual(job);
    }
  });

  it("reads O*NET categories, plain identifiers, several locations and nested ItemLists", () => {
    const { jobs } = html(`
      <script type="application/ld+json">{"@context":"https://schema.org","@type":"ItemList","itemListElement":[
        {"@type":"ListItem","position":1,"item":{"@type":"JobPosting","title":"Solutions Engineer","identifier":4711,
          "occupationalCategory":"15-1252.00 Software Developers",
          "jobLocation":[{"@type":"Place","address":{"@type":"PostalAddress","addressLocality":"Paris","addressCountry":{"@type":"Country","name":"France"}}},
                         {"@type":"Place","address":"Lyon, France"}],
          "hiringOrganization":{"@type":"Organization","name":"Someone Else"}}},
        {"@type":"ListItem","position":2,"item":{"@type":"JobPosting","title":"Support Agent","department":"Support"}}
      ]}</script>`);
    expect(jobs).toEqual([
      {
        key: "4711",
        title: "Solutions Engineer",
        location: "Paris, France / Lyon, France",
        department: "Software Developers",
        url: null,
        origin: "jsonld",
      },
      {
        key: "support agent|",
        title: "Support Agent",
        location: null,
        department: "Support",
        url: null,
        origin: "jsonld",
      },
    ]);
  });
});

describe("jobs from visible lists", () => {
  it("reads the Lever-style list of careers-list with locations, teams and posting URLs", () => {
    const { jobs } = html(fixture("careers-list.html"), "https://jobs.lever.co/northwind");
    expect(jobs).toEqual([
      {
        key: "https://jobs.lever.co/northwind/c3a1f0e2-5b7d-4e8a-9c21-7f3e2d1b0a94",
        title: "Customer Success Manager, EMEA",
        location: "London, United Kingdom",
        department: "Customer Success – Mid-Market",
        url: "https://jobs.lever.co/northwind/c3a1f0e2-5b7d-4e8a-9c21-7f3e2d1b0a94",
        origin: "list",
      },
      {
        key: "https://jobs.lever.co/northwind/6f0c2a8e-1d4b-4c7a-b3e5-0a9d8c7b6e51",
        title: "Senior Platform Engineer",
        location: "Toronto, Canada",
        department: "Engineering – Platform",
        url: "https://jobs.lever.co/northwind/6f0c2a8e-1d4b-4c7a-b3e5-0a9d8c7b6e51",
        origin: "list",
      },
      {
        key: "https://jobs.lever.co/northwind/8b2e4d6f-3a5c-4e7b-9d1f-2c4e6a8b0d13",
        title: "Backend Engineer, Integrations",
        location: "Remote – North America",
        department: "Engineering – Integrations",
        url: "https://jobs.lever.co/northwind/8b2e4d6f-3a5c-4e7b-9d1f-2c4e6a8b0d13",
        origin: "list",
      },
      {
        key: "https://jobs.lever.co/northwind/1a3c5e70-0000-4b2d-8f6a-9e8d7c6b5a40",
        title: "Engineering Manager, Growth",
        location: "Toronto, Canada",
        department: "Engineering – Growth",
        url: "https://jobs.lever.co/northwind/1a3c5e70-0000-4b2d-8f6a-9e8d7c6b5a40",
        origin: "list",
      },
      {
        key: "https://jobs.lever.co/northwind/4d6f8a0c-2e4a-4c6e-8a0c-2e4a6c8e0a25",
        title: "Product Marketing Manager",
        location: "New York, NY",
        department: "Marketing",
        url: "https://jobs.lever.co/northwind/4d6f8a0c-2e4a-4c6e-8a0c-2e4a6c8e0a25",
        origin: "list",
      },
    ]);
  });

  it("reads the visible list of careers-v1 when the page has no JSON-LD, with department headings", () => {
    const body = fixture("careers-v1.html").replace(/<script type="application\/ld\+json">[\s\S]*?<\/script>/, "");
    expect(html(body).jobs).toEqual([
      {
        key: "https://www.heliolytics.io/careers/senior-backend-engineer",
        title: "Senior Backend Engineer",
        location: "Berlin, BE, DE",
        department: "Engineering",
        url: "https://www.heliolytics.io/careers/senior-backend-engineer",
        origin: "list",
      },
      {
        key: "https://www.heliolytics.io/careers/data-engineer",
        title: "Data Engineer",
        location: "Berlin, DE / Remote",
        department: "Engineering",
        url: "https://www.heliolytics.io/careers/data-engineer",
        origin: "list",
      },
      {
        key: "https://www.heliolytics.io/careers/product-designer",
        title: "Product Designer",
        location: "Remote",
        department: "Design",
        url: "https://www.heliolytics.io/careers/product-designer",
        origin: "list",
      },
      {
        key: "https://www.heliolytics.io/careers/account-executive-mid-market",
        title: "Account Executive, Mid-Market",
        location: "New York, NY, US",
        department: "Sales",
        url: "https://www.heliolytics.io/careers/account-executive-mid-market",
        origin: "list",
      },
      {
        key: "https://www.heliolytics.io/careers/customer-success-manager",
        title: "Customer Success Manager",
        location: "London, GB",
        department: "Customer Success",
        url: "https://www.heliolytics.io/careers/customer-success-manager",
        origin: "list",
      },
    ]);
  });

  it("reads a Greenhouse-style board with department sections", () => {
    const { jobs } = html(
      `<div id="wrapper"><div id="main">
        <h1>Current openings at Contoso</h1>
        <section class="level-0"><h3 id="4012">Engineering</h3>
          <div class="opening" department_id="4012"><a data-mapped="true" href="/contoso/jobs/5551234">Backend Engineer</a><br><span class="location">Remote - US</span></div>
          <div class="opening" department_id="4012"><a data-mapped="true" href="/contoso/jobs/5551235">iOS Engineer</a><br><span class="location">Austin, TX</span></div>
        </section>
        <section class="level-0"><h3 id="4013">People</h3>
          <div class="opening" department_id="4013"><a data-mapped="true" href="/contoso/jobs/5551236">Recruiter</a><br><span class="location">Austin, TX</span></div>
        </section>
      </div></div>`,
      "https://boards.greenhouse.io/contoso",
    );
    expect(jobs.map(({ title, location, department, url }) => ({ title, location, department, url }))).toEqual([
      {
        title: "Backend Engineer",
        location: "Remote - US",
        department: "Engineering",
        url: "https://boards.greenhouse.io/contoso/jobs/5551234",
      },
      {
        title: "iOS Engineer",
        location: "Austin, TX",
        department: "Engineering",
        url: "https://boards.greenhouse.io/contoso/jobs/5551235",
      },
      {
        title: "Recruiter",
        location: "Austin, TX",
        department: "People",
        url: "https://boards.greenhouse.io/contoso/jobs/5551236",
      },
    ]);
  });

  it("reads plain list items under an 'Open positions' heading", () => {
    const { jobs } = html(`
      <main><h1>Careers</h1><p>Join a small team doing big things for developers everywhere.</p>
        <div class="section-head"><h2>Open positions</h2></div>
        <ul>
          <li><a href="/careers/devrel">Developer Advocate</a></li>
          <li><a href="/careers/sre">Site Reliability Engineer</a></li>
        </ul>
        <h2>Benefits</h2><ul><li><a href="/benefits#health">Health insurance</a></li></ul>
      </main>`);
    expect(jobs.map(({ title, url, origin }) => ({ title, url, origin }))).toEqual([
      { title: "Developer Advocate", url: "https://www.heliolytics.io/careers/devrel", origin: "list" },
      { title: "Site Reliability Engineer", url: "https://www.heliolytics.io/careers/sre", origin: "list" },
    ]);
  });

  it("finds no jobs on pricing pages, changelogs or the homepage", () => {
    for (const name of ["pricing-v1.html", "pricing-jsonld.html", "changelog-v2.html", "homepage.html"]) {
      expect(html(fixture(name)).jobs).toEqual([]);
    }
  });
});
