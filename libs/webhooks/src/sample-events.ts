// The samples live with the event catalogue (libs/events), which triggered events use too.
export { sampleEventData } from '#events';
