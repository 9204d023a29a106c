export { type WidgetInitialization, type WidgetOptions, widgetInitialization } from './widget.js';
